package workload_test

import (
	"testing"
	"time"
)

// A StatefulSet comes up one ordinal at a time, each once the one before
// is ready; an update replaces the highest ordinal first, the next once
// the new one is ready; the current revision moves when all are updated;
// scaling down deletes from the highest ordinal.
func TestStatefulSetOrdering(t *testing.T) {
	r := start(t, threeNodes)
	set := statefulSet("db", "A", 3)
	r.at(0, r.create(set))
	r.at(2*time.Minute, r.retemplate(set, "B"))
	r.at(4*time.Minute, r.scale(set, 1))
	steps := []struct {
		at     time.Duration
		status string
		pods   []string
	}{
		{0, "gen=1 replicas=1 ready=0 current=1 updated=1 available=0", []string{
			"db-0 master-0 A Pending False"}},
		{30 * time.Second, "gen=1 replicas=2 ready=1 current=2 updated=2 available=1", []string{
			"db-0 master-0 A Running True", "db-1 master-1 A Pending False"}},
		{time.Minute, "gen=1 replicas=3 ready=2 current=3 updated=3 available=2", []string{
			"db-0 master-0 A Running True", "db-1 master-1 A Running True", "db-2 master-2 A Pending False"}},
		{90 * time.Second, "gen=1 replicas=3 ready=3 current=3 updated=3 available=3", []string{
			"db-0 master-0 A Running True", "db-1 master-1 A Running True", "db-2 master-2 A Running True"}},
		{2 * time.Minute, "gen=2 replicas=3 ready=2 current=2 updated=1 available=2", []string{
			"db-0 master-0 A Running True", "db-1 master-1 A Running True", "db-2 master-2 B Pending False"}},
		{150 * time.Second, "gen=2 replicas=3 ready=2 current=1 updated=2 available=2", []string{
			"db-0 master-0 A Running True", "db-1 master-1 B Pending False", "db-2 master-2 B Running True"}},
		{3 * time.Minute, "gen=2 replicas=3 ready=2 current=0 updated=3 available=2", []string{
			"db-0 master-0 B Pending False", "db-1 master-1 B Running True", "db-2 master-2 B Running True"}},
		{210 * time.Second, "gen=2 replicas=3 ready=3 current=3 updated=3 available=3", []string{
			"db-0 master-0 B Running True", "db-1 master-1 B Running True", "db-2 master-2 B Running True"}},
		{4 * time.Minute, "gen=3 replicas=1 ready=1 current=1 updated=1 available=1", []string{
			"db-0 master-0 B Running True"}},
	}
	for _, s := range steps {
		r.to(s.at)
		r.expectStatus(set, s.status)
		r.expectPods("db", s.pods...)
	}
}
