package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// modproxy writes the files a GOPROXY=file:// URL serves for one version of
// the module at the repository's HEAD (list, .info, .mod, .zip), so that
// go install MODULE/cmd/opcert@VERSION fetches opcert as it fetches any
// module, and its dependencies from the real proxy after it in GOPROXY.
// The zip holds HEAD's committed files (git archive), as a proxy serving
// the tag would, never the work tree's uncommitted ones.
func modproxy(args []string) error {
	fs := flag.NewFlagSet("modproxy", flag.ContinueOnError)
	repo := fs.String("repo", ".", "the repository's root")
	version := fs.String("version", "", "the version to serve HEAD as (a semantic version)")
	out := fs.String("out", "", "the proxy's directory (GOPROXY=file://DIR)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *version == "" || *out == "" {
		return errors.New("-version and -out are required")
	}
	src, err := os.MkdirTemp("", "opcert-modproxy-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(src)
	archive := exec.Command("sh", "-c", `git -C "$1" archive HEAD | tar -x -C "$2"`, "sh", *repo, src)
	archive.Stderr = os.Stderr
	if err := archive.Run(); err != nil {
		return fmt.Errorf("git archive HEAD: %w", err)
	}
	gomod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		return err
	}
	path := modfile.ModulePath(gomod)
	m := module.Version{Path: path, Version: *version}
	if err := module.Check(m.Path, m.Version); err != nil {
		return err
	}
	escaped, err := module.EscapePath(path)
	if err != nil {
		return err
	}
	dir := filepath.Join(*out, escaped, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	z, err := os.Create(filepath.Join(dir, *version+".zip"))
	if err != nil {
		return err
	}
	if err := zip.CreateFromDir(z, m, src); err != nil {
		z.Close()
		return err
	}
	if err := z.Close(); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{*version, time.Now().UTC()})
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{"list": []byte(*version + "\n"), *version + ".info": info, *version + ".mod": gomod} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("modproxy: %s@%s in %s\n", path, *version, *out)
	return nil
}
