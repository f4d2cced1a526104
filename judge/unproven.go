package judge

import (
	"fmt"

	"github.com/opcert/opcert/reports"
)

// NothingJudged says, when every rule among cases said "not judged", that
// the run proved nothing (the scenario's expectations do not count); ""
// when some rule judged, or there was none. A recording judged by watch
// or analyze is held to it as a played run is.
func NothingJudged(cases []reports.Case) string {
	judged, rules := reports.Judged(cases)
	if rules == 0 || judged > 0 {
		return ""
	}
	return fmt.Sprintf("no rule could judge the run: all %d said not judged", rules)
}
