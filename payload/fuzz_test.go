package payload

import (
	"strings"
	"testing"
)

// FuzzParse holds parseFile to what the lint and the version operator rely
// on, whatever a file holds: no panic, lines inside the file, objects
// numbered in order, and every document either an object, a problem or
// empty. (go test -fuzz FuzzParse ./payload/)
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		clusterOperator("example", "") + "---\n" + deployment("ns", "example-operator"),
		"# c\n---\n---\nnull\n--- # x\n- a\n",
		"a: [\n",
		"kind: A\n\tb: 1\n",
		"{\"kind\": \"A\", \"metadata\": {\"name\": \"a\",}}",
		"{\"kind\": \"A\"} {\"kind\": \"B\"}\n[1]",
		"{\"a\": ",
		"a: &x [*x]\n",
		"a: !!binary gIGC\n",
		"---x\n--- \r\n\xef\xbb\xbfkind: A\n",
		"? [a]\n: 1\n",
		"\x00",
		"0: \n0",
		"\r0:",
		"a: 1\rb: [\r",
	} {
		f.Add("0000_50_x_07_co.yaml", []byte(seed))
	}
	f.Add("a.json", []byte(`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}`))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		ms, ps := parseFile(name, data)
		// Lines as an editor shows them: a CR alone breaks one too.
		lines := strings.Count(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(data)), "\n") + 1
		for i, m := range ms {
			if m.Index != i || m.File != name || m.Object == nil {
				t.Fatalf("manifest %d: index %d, file %q, object %v", i, m.Index, m.File, m.Object)
			}
			if m.Line < 1 || m.Line > lines {
				t.Fatalf("manifest %d starts on line %d of %d", i, m.Line, lines)
			}
			if l := m.LineOf("metadata", "name"); l < m.Line || l > lines {
				t.Fatalf("manifest %d: metadata.name on line %d, outside %d..%d", i, l, m.Line, lines)
			}
		}
		for _, p := range ps {
			if p.Line < 1 || p.Line > lines || p.Message == "" || p.File != name {
				t.Fatalf("problem %+v in a file of %d lines", p, lines)
			}
		}
	})
}
