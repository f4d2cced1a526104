package staticpod

import (
	"reflect"
	"testing"
)

func TestPrune(t *testing.T) {
	revisions := []int{7, 1, 2, 3, 4, 5, 6, 8, 9, 10}
	for _, c := range []struct {
		name      string
		p         PrunerParams
		revisions []int
		keep, lkg int
		want      []int
	}{
		{name: "003 §Pruner: keep the newest", p: Seed().Pruner, revisions: revisions, keep: 5, lkg: 9, want: []int{1, 2, 3, 4, 5}},
		{name: "003 §Pruner: never the last-known-good revision, kept on top of the newest", p: Seed().Pruner, revisions: revisions, keep: 5, lkg: 3, want: []int{1, 2, 4, 5}},
		{name: "003 §Pruner: no link, nothing spared", p: Seed().Pruner, revisions: revisions, keep: 5, want: []int{1, 2, 3, 4, 5}},
		{name: "003 §Pruner: keeping none still spares last-known-good", p: Seed().Pruner, revisions: revisions, keep: 0, lkg: 3, want: []int{1, 2, 4, 5, 6, 7, 8, 9, 10}},
		{name: "003 §Pruner: fewer revisions than kept, nothing to delete", p: Seed().Pruner, revisions: []int{2, 3}, keep: 5, lkg: 2},
		{name: "003 §Pruner: a revision listed twice is counted once", p: Seed().Pruner, revisions: []int{4, 4, 3, 2}, keep: 2, want: []int{2}},
		{name: "upstream library-go: the pruner deletes the last-known-good revision, the link dangles", p: LibraryGo().Pruner, revisions: revisions, keep: 5, lkg: 3, want: []int{1, 2, 3, 4, 5}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Prune(c.p, c.revisions, c.keep, c.lkg); !reflect.DeepEqual(got, c.want) {
				t.Errorf("delete %v, want %v", got, c.want)
			}
		})
	}
}
