// Command opcert runs conformance scenarios for operator status mechanisms
// against reference and user subjects, on a real API server in virtual time,
// and writes JUnit, JSON and Markdown reports.
//
// Exit codes: 0 every rule passed, 1 a rule or expectation failed,
// 2 usage or environment error (nothing is written to the report directory).
package main

import (
	"errors"
	"fmt"
	"os"
)

// Exit codes.
const (
	exitPass  = 0
	exitFail  = 1
	exitUsage = 2
)

// errRulesFailed tells main that the run completed and a rule failed.
var errRulesFailed = errors.New("some rules failed")

func main() {
	err := newRoot().Execute()
	switch {
	case err == nil:
		os.Exit(exitPass)
	case errors.Is(err, errRulesFailed):
		os.Exit(exitFail)
	default:
		fmt.Fprintln(os.Stderr, "opcert:", err)
		os.Exit(exitUsage)
	}
}
