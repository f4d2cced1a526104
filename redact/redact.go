// Package redact hides the secrets a user may put on opcert's command line
// from everything opcert shows: the values of secret-looking flags and
// environment assignments in an executable subject's command
// (exec:'./manager --token=...'), and the credentials of a URL
// (https://user:password@host). What runs keeps them: only the text shown
// in reports, progress lines and errors is redacted.
//
// Which flags look secret is a guess by name (Secret), made to err on the
// side of hiding: a redacted file name costs a reader little, a printed
// token costs its owner a rotation.
package redact

import (
	"fmt"
	"regexp"
	"strings"
)

// Mask stands for a hidden value.
const Mask = "REDACTED"

// secretWords are the parts of a flag's or variable's name that say its
// value is a credential, lower case.
var secretWords = []string{"token", "passw", "passwd", "pwd", "secret", "credential", "auth", "apikey", "api-key", "api_key", "bearer", "key", "cookie", "session", "signature"}

// Secret tells whether a flag's or an environment variable's name (without
// its dashes) looks like it holds a credential: it contains one of token,
// password, passwd, pwd, secret, credential, auth, apikey, bearer, key,
// cookie, session or signature, in any case.
func Secret(name string) bool {
	name = strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// Args returns a copy of a command's words with the value of each
// secret-looking flag or assignment replaced by Mask, and how many were:
// --token=V and -token=V, --token V and -token V (the next word, unless it
// is a flag itself), and NAME=V (an environment assignment, as env takes
// it). URL credentials in any word are hidden too (URLs) and counted.
// args is not changed.
func Args(args []string) ([]string, int) {
	out := make([]string, len(args))
	n := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		out[i] = a
		if shown := URLs(a); shown != a {
			out[i], n = shown, n+1
			continue
		}
		name, value, assigned := strings.Cut(strings.TrimLeft(a, "-"), "=")
		flag := strings.HasPrefix(a, "-")
		switch {
		case !Secret(name):
		case assigned && value != "" && (flag || envName.MatchString(name)):
			out[i], n = a[:len(a)-len(value)]+Mask, n+1
		case flag && !assigned && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
			i++
			out[i], n = Mask, n+1
		}
	}
	return out, n
}

// envName is the name of an environment variable, as env and shells take
// it.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// userinfo is a URL's user and password: between its scheme's "//" and
// the last "@" before its host ends (a "/", "?", "#", a blank or a quote).
var userinfo = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)[^\s/?#"'<>@]*(?:@[^\s/?#"'<>@]*)*@`)

// URLs returns text with the user and password of every URL in it
// replaced by Mask (https://REDACTED@host): a user name alone can be a
// token, so it goes too. It takes free text (an error, a log line) as well
// as a URL alone, and leaves text without such a URL as it is.
func URLs(text string) string {
	if !strings.Contains(text, "@") {
		return text
	}
	return userinfo.ReplaceAllString(text, "${1}"+Mask+"@")
}

// assignment is a flag given a value (--token=V, --token V, -token V) or
// an environment assignment (TOKEN=V) in free text, the value quoted or
// not. The value is one word as a shell reads it: quoted and bare pieces
// that touch are one value (KEY='a'"b" is hidden whole), so that what is
// hidden once is not hidden again in a different way.
var assignment = regexp.MustCompile(`(^|[\s'"(\[])(-{1,2}[A-Za-z0-9][\w.-]*(?:=|[ \t]+)|[A-Za-z_]\w*=)((?:'[^']*'|"[^"]*"|[^\s'"]+)+)`)

// Text returns free text (an error, a log line, a command line as typed)
// with what Args and URLs would hide hidden: URL credentials, and the
// values of secret-looking flags and environment assignments wherever
// they appear. A value given after a blank is hidden only when it does not
// begin with a dash, as in Args.
func Text(text string) string {
	text = URLs(text)
	var b strings.Builder
	for {
		loc := assignment.FindStringSubmatchIndex(text)
		if loc == nil {
			break
		}
		key, value := text[loc[4]:loc[5]], text[loc[6]:loc[7]]
		name := strings.TrimRight(strings.TrimLeft(key, "-"), "= \t")
		if Secret(name) && (strings.HasSuffix(key, "=") || !strings.HasPrefix(value, "-")) {
			b.WriteString(text[:loc[6]] + Mask)
			text = text[loc[7]:]
			continue
		}
		// The value is read again: a quoted one may hold flags of its own
		// (--subject "operator=exec:./op --token=...").
		b.WriteString(text[:loc[5]])
		text = text[loc[5]:]
	}
	b.WriteString(text)
	return b.String()
}

// Note says in words that n values were redacted, for a report: "2
// secret-looking values redacted"; empty for none.
func Note(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return "1 secret-looking value redacted"
	}
	return fmt.Sprintf("%d secret-looking values redacted", n)
}
