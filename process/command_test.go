package process

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Command
		err  string
	}{
		{"./bin/manager --name {name}", Command{"./bin/manager", "--name", "{name}"}, ""},
		{"  a   b\tc  ", Command{"a", "b", "c"}, ""},
		{`a 'b c' "d e" f\ g`, Command{"a", "b c", "d e", "f g"}, ""},
		{`"x\"y\\z" 'it''s'`, Command{`x"y\z`, "its"}, ""},
		{`$HOME ~ *`, Command{"$HOME", "~", "*"}, ""},
		{`a ''`, Command{"a", ""}, ""},
		{"", nil, "the command is empty"},
		{"'open", nil, "the quote ' at byte 1 is not closed"},
		{`a "open`, nil, `the quote " at byte 3 is not closed`},
		{`a\`, nil, "lone backslash"},
		{strings.Repeat("a", maxCommand+1), nil, "at most 4096"},
	} {
		got, err := ParseCommand(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	c, _ := ParseCommand("op --name={name} --role {role}")
	if got := c.For(map[string]string{"name": "etcd", "role": "operator"}); !reflect.DeepEqual(got, []string{"op", "--name=etcd", "--role", "operator"}) {
		t.Errorf("For = %q", got)
	}
}

// Whatever it is given, ParseCommand does not panic, and what it reads
// String writes back to the same words, unless String's quoting makes the
// line longer than a command may be (then ParseCommand says so).
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"a b", `'x y' "z\"" w\ v`, "", "'", `"\\`, "a\tb\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCommand(s)
		if err != nil {
			return
		}
		line := c.String()
		back, err := ParseCommand(line)
		if len(line) > maxCommand {
			if err == nil {
				t.Fatalf("%q: a line of %d bytes was read, over the %d a command may be", s, len(line), maxCommand)
			}
			return
		}
		if err != nil || !reflect.DeepEqual(back, c) {
			t.Fatalf("%q -> %q -> %q (%v)", s, c, back, err)
		}
	})
}
