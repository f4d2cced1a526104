package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// The report directory: opcert replaces --out only when it is absent, an
// empty directory, or a directory opcert wrote and left as it was: its
// marker file lists every file and directory opcert put there, and a
// directory holding anything else (notes, screenshots, a capture to
// analyze) is the user's and is never touched. Nor is an --out that holds
// an input of the command (a timeline, a scenario, a kubeconfig): replacing
// it would delete the input. Reports are written to a staging directory
// beside --out and swapped in only when complete (commitReport), so a run
// that fails, errs or is interrupted leaves --out as it was.
//
// A report directory of an opcert from before the list (its marker is a
// line of text) is refused too: opcert cannot tell the user's files from
// its own there. The message says to look through it and remove it, or to
// give a new --out.
const (
	marker     = ".opcert-report"
	stagingTag = ".tmp-" // .<base>.tmp-<pid>-<random>
	markerNote = "This directory was written by opcert. Given as --out again, opcert replaces it as a whole, " +
		"but only if it holds exactly the files listed here: add a file of your own and opcert refuses to touch it."
)

// manifest is the marker file's content.
type manifest struct {
	WrittenBy string `json:"writtenBy"`
	Note      string `json:"note"`
	// Files are the paths opcert wrote, relative to the directory and
	// slash-separated, directories ending in a slash, sorted.
	Files []string `json:"files"`
}

// checkOut refuses, before any work, an --out that opcert must not replace:
// one that holds what opcert did not write, or any of inputs (the files the
// command reads).
func checkOut(out string, inputs ...string) error {
	if strings.TrimSpace(out) == "" {
		return errors.New("--out is empty: give a directory for the reports, e.g. --out opcert-report")
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	if cwd, err := os.Getwd(); err == nil && within(cwd, abs) {
		return fmt.Errorf("--out %s is the working directory or one that holds it; opcert replaces the report directory as a whole: give a new directory, e.g. --out opcert-report", out)
	}
	if err := holdsNoInput(out, inputs); err != nil {
		return err
	}
	fi, err := os.Lstat(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return writableParent(out)
	case err != nil:
		return fmt.Errorf("--out %s: %w", out, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("--out %s is a symbolic link; opcert does not replace links: give the directory itself or a new path", out)
	case !fi.IsDir():
		return fmt.Errorf("--out %s is a file, not a report directory; opcert will not replace it: give a new directory", out)
	}
	if ours(out) {
		if err := onlyWhatOpcertWrote(out); err != nil {
			return err
		}
		return writableParent(out)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("--out %s holds files opcert did not write (%s); opcert replaces only its own report directories (they hold %s): give a new or empty directory, or move those files away",
			out, entries[0].Name(), marker)
	}
	return writableParent(out)
}

// holdsNoInput refuses an --out that is or holds one of the inputs,
// symbolic links resolved on both sides.
func holdsNoInput(out string, inputs []string) error {
	dir := resolved(out)
	for _, in := range inputs {
		if in != "" && within(resolved(in), dir) {
			return fmt.Errorf("--out %s holds %s, an input of this command; opcert replaces --out as a whole and would delete it: give another --out", out, in)
		}
	}
	return nil
}

// resolved is path made absolute with the symbolic links of its longest
// existing prefix resolved (the rest does not exist yet).
func resolved(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if dir == filepath.Dir(dir) {
			return abs
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// within tells whether dir is base or below it.
func within(dir, base string) bool {
	rel, err := filepath.Rel(base, dir)
	return err == nil && (rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))))
}

func ours(dir string) bool {
	fi, err := os.Lstat(filepath.Join(dir, marker))
	return err == nil && fi.Mode().IsRegular()
}

// maxManifest bounds the marker file read: a list of report files.
const maxManifest = 16 << 20

func readManifest(dir string) (manifest, error) {
	f, err := os.Open(filepath.Join(dir, marker))
	if err != nil {
		return manifest{}, err
	}
	defer f.Close()
	var m manifest
	err = json.NewDecoder(io.LimitReader(f, maxManifest)).Decode(&m)
	if err == nil && m.WrittenBy != "opcert" {
		err = errors.New("not opcert's list")
	}
	return m, err
}

// onlyWhatOpcertWrote refuses a report directory that holds a file or
// directory its marker does not list, or one whose marker lists nothing
// (an older opcert's).
func onlyWhatOpcertWrote(out string) error {
	m, err := readManifest(out)
	if err != nil {
		return fmt.Errorf("--out %s was written by an older opcert, whose %s does not list the files it wrote, so opcert cannot tell yours from its own there: look through it, then remove it (rm -r %s) or give a new --out",
			out, marker, out)
	}
	listed := map[string]bool{}
	for _, f := range m.Files {
		listed[f] = true
		for d := f; ; { // a listed file's directories are listed too
			d = strings.TrimSuffix(d, "/")
			i := strings.LastIndexByte(d, '/')
			if i < 0 {
				break
			}
			d = d[:i+1]
			listed[d] = true
		}
	}
	var foreign string
	err = filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(out, path)
		if rel == "." || rel == marker {
			return nil
		}
		name := filepath.ToSlash(rel)
		switch {
		case d.IsDir() && listed[name+"/"]:
			return nil
		case d.Type().IsRegular() && listed[name]:
			return nil
		}
		foreign = rel
		return fs.SkipAll
	})
	if err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	if foreign != "" {
		return fmt.Errorf("--out %s holds %s, which opcert did not write (its %s lists what it wrote); opcert replaces a report directory only as it left it: move %s away, or give a new --out",
			out, foreign, marker, foreign)
	}
	return nil
}

// writeManifest lists in dir's marker every file and directory under it.
func writeManifest(dir string) error {
	m := manifest{WrittenBy: "opcert", Note: markerNote, Files: []string{}}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		switch {
		case rel == "." || rel == marker:
		case d.IsDir():
			m.Files = append(m.Files, filepath.ToSlash(rel)+"/")
		default:
			m.Files = append(m.Files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(m.Files)
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, marker), append(data, '\n'), 0o644)
}

// writableParent checks that the staging directory can be made beside out:
// the nearest existing ancestor must be a directory opcert may write in.
func writableParent(out string) error {
	for dir := filepath.Dir(filepath.Clean(out)); ; dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if errors.Is(err, fs.ErrNotExist) && dir != filepath.Dir(dir) {
			continue
		}
		if err != nil {
			return fmt.Errorf("--out %s: %w", out, err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("--out %s: %s is not a directory", out, dir)
		}
		if unix.Access(dir, unix.W_OK|unix.X_OK) != nil {
			return fmt.Errorf("--out %s: cannot write in %s: give a directory you can write to", out, dir)
		}
		return nil
	}
}

// stagingDir makes a directory beside out, marked as opcert's (its list
// is written when it is swapped in); the run writes there and
// commitReport swaps it in. Staging directories left by an opcert that
// was killed outright are removed first.
func stagingDir(out string) (string, error) {
	parent, base := filepath.Split(filepath.Clean(out))
	if parent == "" {
		parent = "."
	}
	sweepStaging(parent, base)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", envError{fmt.Errorf("report directory %s: %w", out, err)}
	}
	dir, err := os.MkdirTemp(parent, "."+base+stagingTag+strconv.Itoa(os.Getpid())+"-")
	if err == nil {
		err = writeManifest(dir)
	}
	if err != nil {
		return "", envError{fmt.Errorf("report directory %s: %w", out, err)}
	}
	staged.Lock()
	staged.dirs = append(staged.dirs, dir)
	staged.Unlock()
	return dir, nil
}

// staged are the staging directories this opcert made, for a second
// signal to remove: it exits at once, and the commands' deferred removals
// never run.
var staged struct {
	sync.Mutex
	dirs []string
	// files are files a run keeps only while it lasts (--kubeconfig-out).
	files []string
}

// removeStaged removes every staging directory this opcert made, and the
// earlier report a swap left in one's place (swapIn). Called with the
// decision's lock held for good (outcome.atOnce), so that no swap is under
// way: --out itself is never touched.
func removeStaged() {
	staged.Lock()
	defer staged.Unlock()
	for _, dir := range staged.dirs {
		_ = os.RemoveAll(dir)
		_ = os.RemoveAll(dir + ".old")
	}
	for _, f := range staged.files {
		_ = os.Remove(f)
	}
}

// sweepStaging removes marked staging directories of out whose opcert is
// gone, and the earlier reports it was swapping out.
func sweepStaging(parent, base string) {
	dirs, _ := filepath.Glob(filepath.Join(parent, "."+base+stagingTag+"*"))
	for _, dir := range dirs {
		rest := strings.TrimPrefix(filepath.Base(dir), "."+base+stagingTag)
		pid, _, ok := strings.Cut(rest, "-")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || !ours(dir) || alive(n) {
			continue
		}
		_ = os.RemoveAll(dir)
	}
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// swapIn puts staging in out's place, checking again that out may be
// replaced (a file may have been added during the run), and returns where
// the earlier report now is, for the caller to remove ("" if there was
// none). Where the file system can, the two are exchanged in one step
// (exchange): out is at every instant the earlier report
// or the new one. Elsewhere the earlier report is moved aside first.
func swapIn(staging, out string) (string, error) {
	if err := checkOut(out); err != nil {
		return "", err
	}
	if err := os.Chmod(staging, 0o755); err != nil {
		return "", envError{err}
	}
	if _, err := os.Lstat(out); err != nil {
		if err := os.Rename(staging, out); err != nil {
			return "", envError{fmt.Errorf("replacing %s: %w", out, err)}
		}
		return "", nil
	}
	if exchange(staging, out) == nil {
		return staging, nil
	}
	old := staging + ".old"
	if err := os.Rename(out, old); err != nil {
		return "", envError{fmt.Errorf("replacing %s: %w", out, err)}
	}
	if err := os.Rename(staging, out); err != nil {
		_ = os.Rename(old, out)
		return "", envError{fmt.Errorf("replacing %s: %w", out, err)}
	}
	return old, nil
}

func writeTimeline(path string, write func(w io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
