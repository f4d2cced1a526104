package reports

import (
	"errors"
	"io"
	"os"
	"path/filepath"
)

// Files WriteAll writes, and the writer of each.
var files = []struct {
	name  string
	write func(io.Writer, *Report) error
}{
	{"junit.xml", WriteJUnit},
	{"report.json", WriteJSON},
	{"report.md", WriteMarkdown},
}

// WriteAll writes junit.xml, report.json and report.md into dir, creating
// dir if needed, then report.html (WriteHTMLFile), which draws the runs'
// timelines the caller wrote under dir. The three are first written to
// temporary files in dir and only renamed into place once every one is
// complete, so a failure leaves neither a truncated report nor a mix of new
// and old ones for CI to pick up.
func WriteAll(dir string, r *Report) (err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var temps []string
	defer func() {
		if err != nil {
			for _, t := range temps {
				os.Remove(t)
			}
		}
	}()
	for _, f := range files {
		tmp, err := os.CreateTemp(dir, "."+f.name+".*")
		if err != nil {
			return err
		}
		temps = append(temps, tmp.Name())
		err = f.write(tmp, r)
		err = errors.Join(err, tmp.Chmod(0o644), tmp.Close())
		if err != nil {
			return err
		}
	}
	for i, f := range files {
		if err := os.Rename(temps[i], filepath.Join(dir, f.name)); err != nil {
			return err
		}
	}
	// The page draws the timelines the caller wrote under dir.
	return WriteHTMLFile(dir, r)
}
