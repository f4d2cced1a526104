package stale

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opcert/opcert/scenarios"
)

// bound is one limit: under is the largest input it lets through and over
// the smallest it refuses, with the message it must give.
type bound struct {
	name        string
	under, over string
	want        []string
}

// TestLimits holds every bound in limits.go exactly at its edge.
func TestLimits(t *testing.T) {
	for _, b := range append(fieldBounds(), append(countBounds(), append(objectBounds(t), timeBounds()...)...)...) {
		t.Run(b.name, func(t *testing.T) {
			if _, err := scenarios.Parse("f.yaml", []byte(b.under)); err != nil {
				t.Fatalf("just under the limit: %v", err)
			}
			_, err := scenarios.Parse("f.yaml", []byte(b.over))
			if err == nil {
				t.Fatal("just over the limit: no error")
			}
			for _, w := range b.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", clip(err.Error()), w)
				}
			}
		})
	}
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "..."
	}
	return s
}

// padded is base grown to n bytes with a comment.
func padded(n int) string {
	return base + "#" + strings.Repeat("x", n-len(base)-2) + "\n"
}

// operator writes one operator entry with an Available condition.
func operatorEntry(name string, count int, more string) string {
	return fmt.Sprintf("  - name: %s\n    count: %d\n    conditions:\n      - {type: Available, status: \"True\", reason: A}\n%s", name, count, more)
}

func withOperators(ops string) string {
	return "name: t\nmechanism: stale\nduration: 1h\noperators:\n" + ops
}

func fieldBounds() []bound {
	withName := func(n int) string { return strings.Replace(base, "name: t", "name: "+strings.Repeat("s", n), 1) }
	withCondition := func(field string, n int) string {
		return strings.Replace(base, "reason: AsExpected", "reason: AsExpected, "+field+": "+strings.Repeat("R", n), 1)
	}
	withReason := func(n int) string { return strings.Replace(base, "AsExpected", strings.Repeat("R", n), 1) }
	fleet := func(n, count int) string { return withOperators(operatorEntry(strings.Repeat("o", n), count, "")) }
	create := func(n int) string {
		return withSteps("  - create: {apiVersion: v1, kind: ConfigMap, metadata: {name: " + strings.Repeat("c", n) + "}}\n")
	}
	return []bound{
		{"file size", padded(1 << 20), padded(1<<20 + 1), []string{"f.yaml:1: the file is larger than 1 MiB"}},
		{"scenario name", withName(40), withName(41), []string{"f.yaml:1: name:", "at most 40"}},
		{"operator name", fleet(55, 0), fleet(56, 0), []string{"f.yaml:5: operators[0].name:", "at most 55"}},
		{"fleet name", fleet(52, 99), fleet(53, 99), []string{"f.yaml:5: operators[0].name:", "at most 52"}},
		{"big fleet name", fleet(51, 100), fleet(52, 100), []string{"f.yaml:5: operators[0].name:", "at most 51"}},
		{"create name", create(245), create(246), []string{"f.yaml:9: steps[0].create.metadata.name: is 246 bytes long; use at most 245"}},
		{"reason", withReason(1024), withReason(1025), []string{"f.yaml:7: operators[0].conditions[0].reason: is 1025 bytes long", "at most 1024"}},
		{"message", withCondition("message", 32768), withCondition("message", 32769),
			[]string{"f.yaml:7: operators[0].conditions[0].message: is 32769 bytes long", "at most 32768"}},
	}
}

func countBounds() []bound {
	conditions := func(n int) string {
		var more strings.Builder
		for i := range n - 1 {
			fmt.Fprintf(&more, "      - {type: %s, status: \"True\", reason: A}\n", clusterOperatorConditions[(i+1)%len(clusterOperatorConditions)])
		}
		return withOperators(operatorEntry("etcd", 0, more.String()))
	}
	steps := func(n int) string { return withSteps(strings.Repeat("  - advance: 0s\n", n)) }
	expects := func(n int) string {
		return withSteps(strings.Repeat("  - expect: {object: etcd, condition: Available, status: \"True\"}\n", n))
	}
	return []bound{
		{"operators", withOperators(operatorEntry("a", 250, "") + operatorEntry("b", 250, "")),
			withOperators(operatorEntry("a", 250, "") + operatorEntry("b", 250, "") + operatorEntry("c", 0, "")),
			[]string{"f.yaml:4: operators: 501 operators once fleets expand; a run has at most 500"}},
		{"fleet count", withOperators(operatorEntry("a", 500, "")), withOperators(operatorEntry("a", 501, "")),
			[]string{"f.yaml:6: operators[0].count: 501 is out of range", "up to 500"}},
		{"conditions", conditions(5), conditions(6), []string{"f.yaml:7: operators[0].conditions: 6 conditions; an operator reports at most 5"}},
		{"steps", steps(10000), steps(10001), []string{"f.yaml:8: steps: 10001 steps; a scenario has at most 10000"}},
		{"expectations", expects(1000), expects(1001), []string{"f.yaml:8: steps: 1001 expect steps; a scenario checks at most 1000"}},
	}
}

// objectBounds measures create objects with encoding/json, so they also
// check that Parse counts an object's size exactly as it is encoded.
func objectBounds(t *testing.T) []bound {
	nested := func(levels int) string {
		return withSteps("  - create: {apiVersion: v1, kind: A, metadata: {name: a}, spec: " +
			strings.Repeat("{a: ", levels-2) + "[x]" + strings.Repeat("}", levels-2) + "}\n")
	}
	// JSON escapes '<' and '&' to six bytes each and keeps 'é' as two.
	escaped := strings.Repeat("bbbbbbbbbb<é&", 20000)
	object := func(pad int) string {
		return withSteps(fmt.Sprintf("  - create: {apiVersion: v1, kind: A, metadata: {name: a}, data: {x: &big %q, y: *big, pad: %q}}\n", escaped, strings.Repeat("p", pad)))
	}
	big := strings.Repeat("b", 300000)
	creates := func(pad int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "  - create: {apiVersion: v1, kind: A, metadata: {name: a}, data: {x: &big %s, pad: %q}}\n", big, strings.Repeat("p", pad))
		for range 13 {
			b.WriteString("  - create: {apiVersion: v1, kind: A, metadata: {name: a}, data: {x: *big, y: *big}}\n")
		}
		return withSteps(b.String())
	}
	objectUnder, objectOver := edge(t, object, 1<<20)
	createsUnder, createsOver := edge(t, creates, 8<<20)
	return []bound{
		// The top object is level 1, spec 2, and the list at the bottom levels.
		{"create depth", nested(32), nested(33), []string{"f.yaml:9: steps[0].create.spec.a.a", "nested deeper than 32 mappings and lists"}},
		{"create size", objectUnder, objectOver, []string{"f.yaml:9: steps[0].create: the object is larger than 1 MiB as JSON"}},
		{"all creates' size", createsUnder, createsOver, []string{"f.yaml:22: steps[13].create: the create objects add up to more than 8 MiB as JSON"}},
	}
}

// edge pads scenario(pad) until its create objects are exactly limit bytes
// as JSON, and returns that and the scenario one byte larger.
func edge(t *testing.T, scenario func(pad int) string, limit int) (under, over string) {
	s, err := scenarios.Parse("f.yaml", []byte(scenario(0)))
	if err != nil {
		t.Fatal(err)
	}
	size := 0
	for _, st := range s.Steps {
		data, err := json.Marshal(st.Create)
		if err != nil {
			t.Fatal(err)
		}
		size += len(data)
	}
	pad := limit - size
	if pad < 0 {
		t.Fatalf("unpadded objects are %d bytes, over %d", size, limit)
	}
	return scenario(pad), scenario(pad + 1)
}

func timeBounds() []bound {
	duration := func(d string) string { return strings.Replace(base, "duration: 1h", "duration: "+d, 1) }
	chaos := func(meanUptime, maxDown string) string {
		return base + "chaos: {meanUptime: " + meanUptime + ", downtime: {min: 1s, max: " + maxDown + "}}\n"
	}
	// 50 operators for 720h at one fault per 21m36s each is 100,000 faults.
	faults := func(meanUptime string) string {
		return "name: t\nmechanism: stale\nduration: 720h\noperators:\n" + operatorEntry("op", 50, "") +
			"chaos: {meanUptime: " + meanUptime + ", downtime: {min: 1s, max: 1s}}\n"
	}
	return []bound{
		{"duration", duration("720h"), duration("720h0m0.000000001s"), []string{"f.yaml:3: duration: 720h0m0.000000001s is out of range", "at most 30 days"}},
		{"meanUptime", chaos("1s", "1s"), chaos("999999999ns", "1s"), []string{"f.yaml:8: chaos.meanUptime: 999.999999ms is too short; use at least 1s"}},
		{"faults", faults("21m36s"), faults("21m35.999999999s"),
			[]string{"f.yaml:9: chaos.meanUptime: 21m35.999999999s with 50 processes for 720h0m0s means about 100000 faults; a run plays at most 100000, so use a meanUptime of at least 21m36s"}},
		{"downtime", chaos("1h", "720h"), chaos("1h", "720h0m0.000000001s"), []string{"f.yaml:8: chaos.downtime.max: 720h0m0.000000001s is longer than any run"}},
	}
}

func TestFaultsMessageSaysTheNumbers(t *testing.T) {
	in := strings.Replace(base, "- name: etcd", "- name: etcd\n    count: 35", 1) + "chaos: {meanUptime: 1s, downtime: {min: 1s, max: 1s}}\n"
	_, err := scenarios.Parse("f.yaml", []byte(in))
	want := "chaos.meanUptime: 1s with 35 processes for 1h0m0s means about 126000 faults; a run plays at most 100000, so use a meanUptime of at least 2s"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v\nwant %q", err, want)
	}
}

func TestParseReportsAtMostFiftyProblems(t *testing.T) {
	_, err := scenarios.Parse("f.yaml", []byte(withSteps(strings.Repeat("  - killOperator: nope\n", 60))))
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 51 || lines[50] != "f.yaml:1: 10 more problems not shown; fix the ones above first" {
		t.Errorf("%d lines, the last %q; want 50 problems and a count of the rest", len(lines), lines[len(lines)-1])
	}
}

// Load reads no more than the limit, so endless inputs end.
func TestLoadStopsAtTheLimit(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text string
		ok         bool
	}{
		{"at.yaml", padded(1 << 20), true},
		{"over.yaml", padded(1<<20 + 1), false},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := scenarios.Load(path); (err == nil) != tc.ok {
			t.Errorf("scenarios.Load(%s) = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := scenarios.Load("/dev/zero")
	if want := "/dev/zero is a character device, not a regular file"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("scenarios.Load(/dev/zero) = %v, want %q", err, want)
	}
}

// A FIFO given as a scenario file (opcert run FIFO) is refused at once:
// opening it would block until something writes to it, deaf to Ctrl-C.
func TestLoadRefusesAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "scenario.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := scenarios.Load(fifo); done <- err }()
	select {
	case err := <-done:
		if want := fifo + " is a FIFO (named pipe), not a regular file"; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("scenarios.Load(FIFO) = %v, want %q", err, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("scenarios.Load(FIFO) still blocked after 5s")
	}
}
