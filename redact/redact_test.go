package redact

import (
	"slices"
	"strings"
	"testing"
)

func TestArgs(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string
		want []string
		n    int
	}{
		{"nothing secret", []string{"/bin/op", "--name", "{name}", "-v=2", "--kubeconfig", "kc"}, nil, 0},
		{"--flag=value", []string{"/bin/op", "--token=abc123", "-name", "{name}"}, []string{"/bin/op", "--token=REDACTED", "-name", "{name}"}, 1},
		{"-flag=value", []string{"op", "-password=hunter2"}, []string{"op", "-password=REDACTED"}, 1},
		{"--flag value", []string{"op", "--api-key", "k1", "--name", "x"}, []string{"op", "--api-key", "REDACTED", "--name", "x"}, 1},
		{"-flag value", []string{"op", "-Secret", "s", "x"}, []string{"op", "-Secret", "REDACTED", "x"}, 1},
		{"value keeps its own =", []string{"op", "--bearer-token=a=b=c"}, []string{"op", "--bearer-token=REDACTED"}, 1},
		{"a boolean flag before a flag", []string{"op", "--no-auth", "--name", "x"}, nil, 0},
		{"a flag last", []string{"op", "--token"}, nil, 0},
		{"empty value", []string{"op", "--token="}, nil, 0},
		{"environment assignments", []string{"env", "DB_PASSWD=pw", "MY_CREDENTIALS=c", "LOG_LEVEL=debug", "/bin/op"},
			[]string{"env", "DB_PASSWD=REDACTED", "MY_CREDENTIALS=REDACTED", "LOG_LEVEL=debug", "/bin/op"}, 2},
		{"not a variable name", []string{"op", "a key=b"}, nil, 0},
		{"URL credentials", []string{"op", "--server=https://admin:pw@api.example:6443/x"}, []string{"op", "--server=https://REDACTED@api.example:6443/x"}, 1},
		{"every one", []string{"op", "--token=a", "--auth", "b", "PWD=c", "--client-key=d"},
			[]string{"op", "--token=REDACTED", "--auth", "REDACTED", "PWD=REDACTED", "--client-key=REDACTED"}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.in)
			got, n := Args(tc.in)
			want := tc.want
			if want == nil {
				want = tc.in
			}
			if !slices.Equal(got, want) || n != tc.n {
				t.Errorf("Args(%q) = %q, %d; want %q, %d", tc.in, got, n, want, tc.n)
			}
			if !slices.Equal(tc.in, in) {
				t.Errorf("Args changed its input: %q", tc.in)
			}
		})
	}
}

func TestURLs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://api.example:6443", "https://api.example:6443"},
		{"https://user:pass@api.example:6443", "https://REDACTED@api.example:6443"},
		{"https://tok3n@api.example/path?q=a@b", "https://REDACTED@api.example/path?q=a@b"},
		{"https://u:p@ss@host:1/x", "https://REDACTED@host:1/x"},
		{`Get "https://u:***@10.0.0.1:6443/version": dial tcp: refused`, `Get "https://REDACTED@10.0.0.1:6443/version": dial tcp: refused`},
		{"two: http://a:b@h1 and HTTPS://c@h2/", "two: http://REDACTED@h1 and HTTPS://REDACTED@h2/"},
		{"mail me@example.com", "mail me@example.com"},
		{"", ""},
	} {
		if got := URLs(tc.in); got != tc.want {
			t.Errorf("URLs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSecret(t *testing.T) {
	for _, name := range []string{"token", "TOKEN", "password", "passwd", "db-pwd", "client_secret", "credentials", "auth", "oauth2", "apikey", "API_KEY", "bearer", "ssh-key", "session-cookie"} {
		if !Secret(name) {
			t.Errorf("Secret(%q) = false, want true", name)
		}
	}
	for _, name := range []string{"name", "kubeconfig", "v", "leader-elect", "metrics-bind-address", "namespace", "zap-log-level"} {
		if Secret(name) {
			t.Errorf("Secret(%q) = true, want false", name)
		}
	}
}

func TestNote(t *testing.T) {
	if Note(0) != "" || Note(1) != "1 secret-looking value redacted" || !strings.HasPrefix(Note(3), "3 secret-looking values") {
		t.Errorf("Note: %q, %q, %q", Note(0), Note(1), Note(3))
	}
}

func TestText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`--subject "operator=exec:/bin/op --token=abc123 -name {name}": the quote ' at byte 3 is not closed`,
			`--subject "operator=exec:/bin/op --token=REDACTED -name {name}": the quote ' at byte 3 is not closed`},
		{"exec:'/bin/op --password hunter2 --name x'", "exec:'/bin/op --password REDACTED --name x'"},
		{"run --api-key='a b' --secret=\"c d\" next", "run --api-key=REDACTED --secret=REDACTED next"},
		{"env GITHUB_TOKEN=ghp_x /bin/op", "env GITHUB_TOKEN=REDACTED /bin/op"},
		{"--auth --name x", "--auth --name x"},
		{"cannot reach https://u:p@h:6443 (context c)", "cannot reach https://REDACTED@h:6443 (context c)"},
		{"the key is missing; token expired; name=x", "the key is missing; token expired; name=x"},
		{"KEY=''0 and A_TOKEN='a'\"b\"c next", "KEY=REDACTED and A_TOKEN=REDACTED next"},
	} {
		if got := Text(tc.in); got != tc.want {
			t.Errorf("Text(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// FuzzText: redacting twice changes nothing more, and a token given as
// --token=V is hidden whatever V is (one word, not a flag).
func FuzzText(f *testing.F) {
	for _, s := range []string{"abc123", "--subject \"op=exec:./x --token=a\"", "https://u:p@h", "A_KEY='x y'", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := Text(s)
		if twice := Text(once); twice != once {
			t.Fatalf("Text(%q) = %q, and again %q", s, once, twice)
		}
		if s == "" || strings.ContainsAny(s, " \t\n\v\f\r\u0085\u00a0'\"") || strings.HasPrefix(s, "-") {
			return
		}
		if got := Text("run --token=" + s); got != "run --token="+Mask {
			t.Fatalf("Text(run --token=%s) = %q", s, got)
		}
	})
}
