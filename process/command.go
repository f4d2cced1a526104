package process

import (
	"errors"
	"fmt"
	"strings"
)

// Command is an executable and its arguments as given on opcert's command
// line ("exec:./bin/manager --name {name}"), split into words.
type Command []string

// maxCommand bounds a command line: a flag value, not a script.
const maxCommand = 4096

// ParseCommand splits a command line into words as a POSIX shell does,
// without expanding anything: blanks separate words; 'single quotes' keep
// everything; "double quotes" keep blanks and take \" and \\; a backslash
// outside quotes keeps the next character. $, globs and ~ are plain text:
// no shell runs, so nothing a shell would do happens.
func ParseCommand(s string) (Command, error) {
	if len(s) > maxCommand {
		return nil, fmt.Errorf("the command is %d bytes long; at most %d (put a long one in a script and run that)", len(s), maxCommand)
	}
	var words Command
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
			continue
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("the quote ' at byte %d is not closed", i+1)
			}
			w.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) && (s[j+1] == '"' || s[j+1] == '\\') {
					j++
				}
				w.WriteByte(s[j])
			}
			if j == len(s) {
				return nil, fmt.Errorf("the quote \" at byte %d is not closed", i+1)
			}
			i = j
		case c == '\\':
			if i+1 == len(s) {
				return nil, errors.New("the command ends with a lone backslash")
			}
			i++
			w.WriteByte(s[i])
		default:
			w.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, w.String())
	}
	if len(words) == 0 {
		return nil, errors.New("the command is empty: give the executable and its arguments, e.g. exec:'./bin/manager --name {name}'")
	}
	return words, nil
}

// For returns the words with each {key} replaced by vars[key] ({name}: the
// object the instance owns; {role}: its role).
func (c Command) For(vars map[string]string) []string {
	out := make([]string, len(c))
	for i, w := range c {
		for k, v := range vars {
			w = strings.ReplaceAll(w, "{"+k+"}", v)
		}
		out[i] = w
	}
	return out
}

// String quotes each word so that ParseCommand reads them back.
func (c Command) String() string {
	q := make([]string, len(c))
	for i, w := range c {
		if w != "" && !strings.ContainsAny(w, " \t\n'\"\\$`*?~#&|;<>()[]{}") {
			q[i] = w
			continue
		}
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
