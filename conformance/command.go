package conformance

import (
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"

	"github.com/opcert/opcert/process"
)

// placeholder is a {key} in an executable's command.
var placeholder = regexp.MustCompile(`\{[A-Za-z][A-Za-z0-9]*\}`)

// command reads an executable subject's command line and checks what can
// be checked before anything starts: every {key} is one the role gives
// (Role.Placeholders, and {role}), and the executable exists and may be
// run. Either mistake would otherwise show only as an operator that never
// acts, after the API server started.
func (r *Role) command(line string) (process.Command, error) {
	c, err := process.ParseCommand(line)
	if err != nil {
		return c, err
	}
	known := append([]string{"role"}, r.Placeholders...)
	for _, w := range c {
		for _, p := range placeholder.FindAllString(w, -1) {
			if key := strings.Trim(p, "{}"); !slices.Contains(known, key) {
				return c, fmt.Errorf("unknown placeholder %s; the %s role's placeholders: {%s}", p, r.Name, strings.Join(known, "}, {"))
			}
		}
	}
	if program := c[0]; !placeholder.MatchString(program) {
		if _, err := exec.LookPath(program); err != nil {
			return c, fmt.Errorf("the executable %s cannot be run: %w", program, unwrapExec(err))
		}
	}
	return c, nil
}

// unwrapExec is LookPath's error without the program's name, which the
// message already gives.
func unwrapExec(err error) error {
	if e := (*exec.Error)(nil); errors.As(err, &e) {
		return e.Err
	}
	return err
}
