package staticpod

import "sort"

// PrunerParams are the pruner's parameters.
type PrunerParams struct {
	// HonourLastKnownGood: never delete the revision the last-known-good
	// link points at (003 §Pruner).
	HonourLastKnownGood bool
}

// Prune returns the revisions to delete, in ascending order: all but the
// newest keep, and never the last-known-good one when honoured (0: no
// link). The linked revision is kept on top of the newest keep, not in
// their place. The link itself is not a revision and is never deleted.
func Prune(p PrunerParams, revisions []int, keep, lastKnownGood int) []int {
	newest := append([]int(nil), revisions...)
	sort.Sort(sort.Reverse(sort.IntSlice(newest)))
	var del []int
	kept := 0
	for i, r := range newest {
		switch {
		case i > 0 && r == newest[i-1]: // listed twice
		case kept < keep:
			kept++
		case p.HonourLastKnownGood && r == lastKnownGood: // 003 §Pruner
		default:
			del = append(del, r)
		}
	}
	sort.Ints(del)
	return del
}
