package payload

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/opcert/opcert/bounded"
	"github.com/opcert/opcert/visible"
)

// Payload is a manifest directory as the version operator sweeps it.
type Payload struct {
	// Dir is the directory read (empty when read from a file system).
	Dir string
	// Files are the names of the files the sweep takes, in its order.
	Files []string
	// Ignored are the entries of the directory the sweep leaves aside.
	Ignored []Ignored
	// Manifests are the objects of Files, in sweep order: by file, then
	// by place in the file. Manifests[i].Seq is i.
	Manifests []Manifest
	// Problems are the documents (or whole files) that hold no object the
	// version operator could apply, in sweep order.
	Problems []Problem

	deployments *deployments // of Manifests
}

// Ignored is an entry of the directory the sweep does not take.
type Ignored struct {
	// Name is the entry's name in the payload directory.
	Name   string
	Dir    bool   // a subdirectory
	Known  bool   // a file every payload may carry besides manifests
	Reason string // why the sweep leaves it, and what to do if it should not
}

// Problem is a document, or a whole file, that holds no object.
type Problem struct {
	// File is the file's name in the payload directory.
	File string
	Line int // the file's line the problem is on, from 1
	// Message says what is wrong and what to do about it.
	Message string
}

// String is file:line: message, as problems are printed.
func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message) }

// knownFiles are the files a payload carries besides its manifests.
var knownFiles = map[string]string{
	"image-references": "the payload's image references, read when the payload is built, never applied",
	"release-metadata": "the payload's metadata, read by the version operator, never applied",
}

// The limits of a sweep (an error beyond them, not a Problem: the input is
// not a payload opcert can check). The largest manifests of a release
// payload (CRDs) are about 1 MiB, and a release's manifests add up to
// tens of MiB; a file is held as its objects and their YAML positions,
// several times its size.
const (
	MaxFileBytes    = 8 << 20   // one file
	MaxPayloadBytes = 128 << 20 // all the files swept
)

// Read sweeps dir. The error is for a dir that cannot be listed, a file
// larger than MaxFileBytes or files adding up to more than
// MaxPayloadBytes, or ctx done (Ctrl-C: the sweep stops between files);
// what is wrong inside its files is in Problems, and so is a file that
// cannot be read, such as one that is not a regular file (a FIFO, a
// device), which is never opened.
func Read(ctx context.Context, dir string) (*Payload, error) {
	info, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s does not exist: give the directory that holds the manifests (an operator's manifests/, a payload's release-manifests/)", visible.Quote(dir))
		}
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory: give the directory that holds the manifests (an operator's manifests/, a payload's release-manifests/)", visible.Quote(dir))
	}
	p, err := ReadFS(ctx, os.DirFS(dir))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", visible.Quote(dir), err)
	}
	p.Dir = dir
	return p, nil
}

// ReadFS sweeps the root of fsys, as Read does a directory.
func ReadFS(ctx context.Context, fsys fs.FS) (*Payload, error) {
	entries, err := fs.ReadDir(fsys, ".") // sorted by name: the sweep's order
	if err != nil {
		return nil, err
	}
	p := &Payload{}
	var total int64
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, context.Cause(ctx)
		}
		name := e.Name()
		if ig, skip := ignore(name, e.IsDir()); skip {
			p.Ignored = append(p.Ignored, ig)
			continue
		}
		p.Files = append(p.Files, name)
		data, err := bounded.ReadFileFS(ctx, fsys, name, MaxFileBytes)
		var tooLarge *bounded.TooLargeError
		switch {
		case errors.As(err, &tooLarge): // opcert's limit, not the payload's flaw
			return nil, err
		case ctx.Err() != nil:
			return nil, context.Cause(ctx)
		case err != nil:
			p.Problems = append(p.Problems, Problem{File: name, Line: 1, Message: "cannot be read: " + err.Error()})
			continue
		}
		if total += int64(len(data)); total > MaxPayloadBytes {
			return nil, fmt.Errorf("the files up to %s add up to more than %s, the most opcert sweeps as one payload", name, bounded.Size(MaxPayloadBytes))
		}
		ms, probs := parseFile(name, data)
		for _, m := range ms {
			m.Seq = len(p.Manifests)
			p.Manifests = append(p.Manifests, m)
		}
		p.Problems = append(p.Problems, probs...)
	}
	p.deployments = indexDeployments(p.Manifests)
	return p, nil
}

// ignore says whether the sweep leaves the entry name aside, and why.
func ignore(name string, dir bool) (Ignored, bool) {
	if dir {
		return Ignored{Name: name, Dir: true, Reason: "a subdirectory: only the files of the directory itself are swept; " +
			"move its manifests up if they should be applied"}, true
	}
	if why, ok := knownFiles[name]; ok {
		return Ignored{Name: name, Known: true, Reason: why}, true
	}
	ext := path.Ext(name)
	switch ext {
	case ".yaml", ".yml", ".json":
		return Ignored{}, false
	}
	reason := "no extension: only .yaml, .yml and .json files are applied; rename the file if it should be"
	switch lower := strings.ToLower(ext); {
	case lower == ".yaml" || lower == ".yml" || lower == ".json":
		reason = fmt.Sprintf("extension %s is not %s: extensions are matched as written; rename the file if it should be applied", ext, lower)
	case ext != "":
		reason = fmt.Sprintf("extension %s is not .yaml, .yml or .json: never applied; rename the file if it should be", ext)
	}
	return Ignored{Name: name, Reason: reason}, true
}
