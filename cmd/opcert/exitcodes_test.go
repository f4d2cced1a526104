package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/opcert/opcert/conformance"
)

// Every command that says its exit codes in --help says those it can
// exit with, each with main.go's meaning (issue 20 §7: run's help listed
// wrong ones). A command that runs scenarios or judges timelines says it;
// 128+n wherever a signal stops work in progress.
func TestHelpStatesTheExitCodes(t *testing.T) {
	// What each code means in main.go, as words its help must use.
	meaning := map[string]*regexp.Regexp{
		"0":     regexp.MustCompile(`pass|checked out|no error|done`),
		"1":     regexp.MustCompile(`fail|error found|survivor`),
		"2":     regexp.MustCompile(`input's fault|flag|wrong`),
		"3":     regexp.MustCompile(`environment's fault|cluster cannot be reached|recording gap|disk`),
		"4":     regexp.MustCompile(`NOT JUDGED`),
		"128+n": regexp.MustCompile(`signal`),
	}
	all := []string{"0", "1", "2", "3", "4", "128+n"}
	want := map[string][]string{
		"opcert run":         all,
		"opcert watch":       all,
		"opcert analyze":     all,
		"opcert selftest":    {"0", "1", "2", "3", "128+n"},
		"opcert fuzz":        {"0", "1", "2", "3", "128+n"},
		"opcert merge":       {"0", "1", "2", "3", "4"},
		"opcert olm explain": {"0", "2"},
	}
	root := newRoot()
	want["opcert lint"] = []string{"0", "1", "2"}
	for _, l := range conformance.Linters() {
		want["opcert lint "+l.Name] = []string{"0", "1", "2"}
	}
	code := regexp.MustCompile(`(?:Exit codes:|[,;])\s+(\d+|128\+n)\s`)
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		text, ok := exitParagraph(c.Long)
		name := c.CommandPath()
		if _, required := want[name]; !ok {
			if required {
				t.Errorf("%s --help does not say its exit codes", name)
			}
			return
		}
		seen[name] = true
		marks := code.FindAllStringSubmatchIndex(text, -1)
		var codes []string
		for i, m := range marks {
			c := text[m[2]:m[3]]
			codes = append(codes, c)
			end := len(text)
			if i+1 < len(marks) {
				end = marks[i+1][0]
			}
			if re := meaning[c]; re == nil || !re.MatchString(text[m[3]:end]) {
				t.Errorf("%s --help: exit %s is %q, not what main.go means by it", name, c, text[m[3]:end])
			}
		}
		if w, ok := want[name]; ok && !slices.Equal(slices.Sorted(slices.Values(codes)), slices.Sorted(slices.Values(w))) {
			t.Errorf("%s --help lists exit codes %v, want %v:\n%s", name, codes, w, text)
		}
	}
	walk(root)
	for name := range want {
		if !seen[name] {
			t.Errorf("%s: no such command, or no exit codes in its help", name)
		}
	}
}

// exitParagraph is the paragraph of a help text that begins "Exit codes:".
func exitParagraph(long string) (string, bool) {
	_, rest, ok := strings.Cut(long, "Exit codes:")
	if !ok {
		return "", false
	}
	para, _, _ := strings.Cut(rest, "\n\n")
	return "Exit codes: " + strings.Join(strings.Fields(para), " ") + " ", true
}
