package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/opcert/opcert/bounded"
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/record"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
	"github.com/opcert/opcert/visible"
)

type analyzeOptions struct {
	out        string
	mechanism  string
	until      time.Duration
	strict     bool
	mechanisms mechanismFlags
}

func newAnalyze() *cobra.Command {
	o := analyzeOptions{}
	cmd := &cobra.Command{
		Use:   "analyze FILE...",
		Short: "Judge captured timelines offline: opcert's JSON lines or a kubectl -w -o json stream",
		Long: `Judge captured timelines offline and write the usual reports.

Each FILE is read one event at a time, and its format is told from its
first value:

  - opcert's timeline, one JSON event per line (opcert run and opcert
    watch write them under timelines/ in their report directories);
  - the stream of 'kubectl get KIND -w -o json --show-managed-fields'
    (with or without --output-watch-events): each version of an object
    is diffed against the one before; its writer and its time come from
    managedFields, which kubectl prints only with --show-managed-fields.

A timeline inside an opcert report directory (DIR/timelines/F, with
DIR/report.json naming it) is judged as its run judged it, and gives the
run's verdicts: its report.json says the mechanism, the mechanism flags
the run was given (thresholds, profiles, --reaction-bound), --strict, the
time scale (a run's thresholds at --time-scale 0.01 are a hundredth), the
tolerance of a real-time run, and where the run started and ended. A flag
that contradicts the run (another --mechanism, --until or --strict, a
mechanism flag of another value) is refused, exit 2, naming each: to judge
a run's timeline otherwise, copy it out of its report directory. Any other
file is judged by every mechanism that records the
kind of its first object, one run each, named FILE-MECHANISM when there
are several (a ClusterOperator stream: clusteroperator and stale), up to
its last event or --until after its first. --mechanism judges every file
by that mechanism alone. Recorded timelines (events with the
time the API server gave each write) are judged with the tolerance their
lag needs, stated in the report.

The report names who wrote in each timeline and the role each writer's
writes were put down to (WRITERS in the summary). A recording in which a
role the mechanism cannot judge without never wrote (stale's detector:
no write under a manager --detector-manager names, by default opcert's
own detector's and stale-detector; stackable's operator: none under a
manager --stackable-operator-manager names) is NOT JUDGED, saying who
wrote.

A convention rule (how a message reads) that fails gives a warning, which
fails nothing unless --strict.

Memory: ` + analyzeMemory() + `

A recorded timeline that ends in a recording gap never resumed (the
recorder lost the cluster and never listed it again: what a watch killed
meanwhile leaves) is judged as watch judges it: its run is ERROR, and the
rules that passed are not judged from the gap's start; failures before it
stand. A gap that closed before the end is only not judged.

Exit codes: 0 every rule passed (or only warned, unless --strict), 1 a
rule failed, 4 a timeline proved nothing (NOT JUDGED: nothing the rules
look for happened in it, a role they need never wrote in it, or, as its
run said, a run's subject under test never acted or ended unasked), 2 a
file or flag is wrong, or contradicts a run (nothing written), 3 a timeline
ends in a recording gap (the environment's fault when it was recorded;
the report is written, the runs marked ERROR) or a disk error, 128+n
stopped by signal n (the report directory left as it was).`,
		Example: `  opcert analyze opcert-report/timelines/01-stale-hang.jsonl --out /tmp/again
  kubectl get clusteroperators -w -o json --show-managed-fields > co.json   # in CI, then:
  opcert analyze co.json --mechanism stale --detector-manager my-detector --out co-report`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error { return o.run(cmd, files) },
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "out", "o", "opcert-analysis", "report directory (replaced when the analysis completes)")
	f.StringVar(&o.mechanism, "mechanism", "", "the mechanism whose rules judge the files (a run's timeline in an opcert report: its run's, and no other; else default every mechanism that records the first object's kind)")
	f.BoolVar(&o.strict, "strict", false, "count the warnings of convention rules (how messages read) as failures: exit 1 instead of 0 (a run's timeline in an opcert report: as its run did)")
	f.DurationVar(&o.until, "until", 0, "how far the timelines cover, after their first event (default: the last event; a run's timeline in an opcert report: its run's end, and no other)")
	o.mechanisms = addMechanismFlags(f)
	return cmd
}

// analyzeMemory says, per mechanism, whether judging holds the timeline:
// a mechanism whose rules read events one at a time (judge.Online)
// judges in memory that does not grow with the file, or, when its readers
// keep the changes their rules look back along (Online.Grows), in memory
// that grows with those changes only; the others keep the events until
// their rules run at the end (BenchmarkAnalyzeHeld measures them
// all).
func analyzeMemory() string {
	mechs, err := addMechanismFlags(pflag.NewFlagSet("analyze", pflag.ContinueOnError)).build()
	if err != nil {
		return "see the README (\"Performance\")."
	}
	var streaming, changes, holding []string
	for _, n := range sortedNames(mechs) {
		online := conformance.Rulebook(mechs[n]).Online
		var grows []string
		for _, o := range online {
			if o.Grows != "" {
				grows = append(grows, o.Grows)
			}
		}
		switch {
		case len(online) == 0:
			holding = append(holding, n)
		case len(grows) > 0:
			changes = append(changes, n+" ("+strings.Join(grows, "; ")+")")
		default:
			streaming = append(streaming, n)
		}
	}
	say := "per mechanism,"
	if len(streaming) > 0 {
		say += "\n  judged as the events pass, in memory that does not grow with the file:\n    " + strings.Join(streaming, ", ")
	}
	if len(changes) > 0 {
		say += "\n  read as the events pass, keeping no event but, until the rules run at the\n  end, what they look back along, which grows with it:\n    " + strings.Join(changes, "\n    ")
	}
	if len(holding) > 0 {
		say += "\n  held whole until the rules run at the end (about 1.2 KB an event of a\n  ClusterOperator capture, up to 6 KB at the peak; README \"Performance\"):\n    " + strings.Join(holding, ", ")
	}
	return say
}

func (o *analyzeOptions) run(cmd *cobra.Command, files []string) error {
	mechs, err := o.mechanisms.build()
	if err != nil {
		return err
	}
	if o.mechanism != "" && mechs[o.mechanism] == nil {
		return fmt.Errorf("--mechanism %s: no such mechanism; mechanisms: %s", o.mechanism, mechanismNames(mechs))
	}
	if o.until < 0 {
		return fmt.Errorf("--until %s: give a positive duration", o.until)
	}
	if err := checkOut(o.out, files...); err != nil {
		return err
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		} else if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a file: analyze reads captured timelines from files (save a stream with kubectl ... > FILE first)", f)
		}
	}
	staging, err := stagingDir(o.out)
	if err != nil {
		return err
	}
	defer os.RemoveAll(staging)
	rep := &reports.Report{Tool: "opcert", StartedAt: time.Now().UTC(), Environment: reports.Environment{KubeVersion: "none (judged offline)", EtcdVersion: "none"}}
	start := time.Now()
	lost := 0                    // runs whose timeline ended in a recording gap
	var judged []reports.Judging // how each file was judged, for the report
	for i, f := range files {
		as, err := o.asRunOf(cmd, f)
		if err != nil {
			return err
		}
		var judges []conformance.Mechanism
		if as != nil {
			judges = []conformance.Mechanism{as.m}
			judged = append(judged, as.judging)
		} else if judges, err = o.mechanismsOf(cmd.Context(), mechs, f); err != nil {
			return err
		} else {
			judged = append(judged, reports.Judging{Flags: o.mechanisms.given(), Strict: o.strict})
		}
		for _, m := range judges {
			name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
			if len(judges) > 1 {
				name += "-" + m.Name()
			}
			run, err := o.analyze(cmd, m, f, name, len(rep.Runs), staging, as)
			if err != nil {
				if cmd.Context().Err() != nil {
					return fmt.Errorf("%w; %s was left as it was", context.Cause(cmd.Context()), o.out)
				}
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "[%d/%d] %s\n", i+1, len(files), run.Headline())
			if run.Stopped == reports.StopEnvironment { // record.Judge: it ended in a gap
				fmt.Fprintf(cmd.ErrOrStderr(), "opcert: %s: %s: its run is ERROR\n", visible.Quote(f), run.Error)
				lost++
			}
			rep.Runs = append(rep.Runs, run)
		}
	}
	rep.Wall = time.Since(start)
	if same := slices.CompactFunc(judged, func(a, b reports.Judging) bool {
		return a.Strict == b.Strict && slices.Equal(a.Flags, b.Flags)
	}); len(same) == 1 { // else each run was judged its own way
		rep.Judging = &same[0]
	}
	if err := reports.WriteAll(staging, rep); err != nil {
		return envError{err}
	}
	// A run that ends in a gap is the environment's fault, as the watch
	// that recorded it says (exit 3), whatever the rules said of the rest.
	var verdict error
	switch {
	case lost > 0:
		verdict = envError{fmt.Errorf("%d of %d runs judged timelines that end in a recording gap never resumed: the report marks them ERROR", lost, len(rep.Runs))}
	default:
		verdict = exitVerdict(rep)
	}
	if err := commitReport(staging, o.out, verdict); err != nil {
		return err
	}
	fmt.Fprintln(cmd.OutOrStdout())
	reports.WriteSummary(cmd.OutOrStdout(), rep)
	fmt.Fprintf(cmd.OutOrStdout(), "\nreports in %s (junit.xml, report.json, report.md, timelines/)\n", visible.Quote(o.out))
	return verdict
}

// analyze judges one file with m as the report's run i, named name, and
// keeps a copy of its timeline in the report; as, if not nil, says how
// its run judged it.
func (o *analyzeOptions) analyze(cmd *cobra.Command, m conformance.Mechanism, file, name string, i int, staging string, as *asRun) (reports.Run, error) {
	in, err := bounded.Open(file)
	if err != nil {
		return reports.Run{}, err
	}
	defer in.Close()
	src, err := record.Open(bounded.Reader(cmd.Context(), in), conformance.RecordingOf(m))
	if err != nil {
		return reports.Run{}, fmt.Errorf("%s: %w", file, err)
	}
	rel := filepath.Join("timelines", fmt.Sprintf("%02d-%s.jsonl", i+1, name))
	copyPath := filepath.Join(staging, rel)
	if err := os.MkdirAll(filepath.Dir(copyPath), 0o755); err != nil {
		return reports.Run{}, envError{err}
	}
	out, err := os.Create(copyPath)
	if err != nil {
		return reports.Run{}, envError{err}
	}
	defer out.Close()
	// Judging runs aside, so that a signal is honoured at once even while
	// the rules judge at the end of a long file, which nothing interrupts:
	// the command returns, and the exit ends the judging. Everything it
	// writes is in files opened here, never a path made after the return.
	type judged struct {
		run reports.Run
		err error
	}
	done := make(chan judged, 1)
	go func() {
		run, err := o.judge(cmd.Context(), m, file, name, in, src, out, as)
		done <- judged{run, err}
	}()
	select {
	case j := <-done:
		if j.err != nil {
			return reports.Run{}, j.err
		}
		j.run.Timeline = rel
		j.run.Subjects = map[string]string{"mechanism": m.Name()} // what the summary shows of who was judged
		if as != nil {
			// The run's bound, in its scenario's time: a mechanism that
			// scales its bound with the run (stackable) judged with it
			// scaled, as the run did.
			j.run.TimeScale, j.run.Reaction = as.scale, as.run.Reaction
		}
		return j.run, nil
	case <-cmd.Context().Done():
		return reports.Run{}, context.Cause(cmd.Context())
	}
}

// judge judges file, open as in and src, with m, and writes its timeline
// to out; as, if not nil, as its run judged it.
func (o *analyzeOptions) judge(ctx context.Context, m conformance.Mechanism, file, name string, in *os.File, src record.Source, out *os.File, as *asRun) (reports.Run, error) {
	j := record.Judgement{Name: name, Source: file, Until: o.until, Strict: o.strict}
	var err error
	var held *heldSource // a played run's events
	// The tolerance first, so that the rules may judge as the events pass
	// (a long recording is then not held): its run's; else a quick scan of
	// a timeline; a kubectl stream's times are managedFields', whole
	// seconds, so a second.
	switch {
	case as != nil:
		j.Start, j.Until, j.Tolerance, j.Strict, j.Played = as.start, as.until, &as.tolerance, as.strict, as.played
		if as.played {
			if src, err = playedOrder(ctx, src, as.cut); err != nil {
				return reports.Run{}, fmt.Errorf("%s: %w", file, err)
			}
			held = src.(*heldSource)
		}
	case src.Format() == record.FormatJSONL:
		if j.Tolerance, err = scanTolerance(ctx, file, -1); err != nil {
			return reports.Run{}, fmt.Errorf("%s: %w", file, err)
		}
	default:
		second := time.Second
		j.Tolerance = &second
	}
	// A timeline in opcert's format is kept as it is; a kubectl stream as
	// the timeline it became.
	w := bufio.NewWriterSize(out, 1<<20)
	if src.Format() != record.FormatJSONL {
		enc := json.NewEncoder(w)
		j.Tee = func(e timeline.Event) error { return enc.Encode(e) }
	}
	run, err := record.Judge(ctx, src, conformance.Judged(m), j)
	if err != nil {
		if ctx.Err() != nil {
			return reports.Run{}, err
		}
		return reports.Run{}, fmt.Errorf("%s: %w", file, err)
	}
	if held != nil {
		run.NotJudged = as.unproven(run, held.events)
	}
	if src.Format() == record.FormatJSONL {
		if _, err := in.Seek(0, io.SeekStart); err != nil {
			return reports.Run{}, envError{err}
		}
		if _, err := io.Copy(w, bounded.Reader(ctx, in)); err != nil {
			return reports.Run{}, envError{err}
		}
	}
	if err := errors.Join(w.Flush(), out.Close()); err != nil {
		return reports.Run{}, envError{err}
	}
	return run, nil
}

// mechanismsOf are the mechanisms that judge a file that is no run's
// timeline: --mechanism's, else every mechanism that records the kind of
// the file's first API object, in name order (stale and clusteroperator
// both record ClusterOperators: a captured stream is judged by each, and
// says so in its runs' names).
func (o *analyzeOptions) mechanismsOf(ctx context.Context, mechs map[string]conformance.Mechanism, file string) ([]conformance.Mechanism, error) {
	if o.mechanism != "" {
		return []conformance.Mechanism{mechs[o.mechanism]}, nil
	}
	gk, err := firstKind(ctx, file)
	if err != nil {
		return nil, err
	}
	var found []conformance.Mechanism
	for _, n := range sortedNames(mechs) {
		if conformance.RecordingOf(mechs[n]).Records(gk) {
			found = append(found, mechs[n])
		}
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("%s: its first object is a %s, which no mechanism records: give --mechanism (%s)", file, gk, mechanismNames(mechs))
	}
	return found, nil
}

// firstKind is the kind of the first API object a file's timeline names.
func firstKind(ctx context.Context, file string) (schema.GroupKind, error) {
	in, err := bounded.Open(file)
	if err != nil {
		return schema.GroupKind{}, err
	}
	defer in.Close()
	src, err := record.Open(bounded.Reader(ctx, in), nil)
	if err != nil {
		return schema.GroupKind{}, fmt.Errorf("%s: %w", file, err)
	}
	for {
		e, err := src.Next()
		if err == io.EOF {
			return schema.GroupKind{}, fmt.Errorf("%s: no API object in it to tell its mechanism by: give --mechanism", file)
		}
		if ctx.Err() != nil {
			return schema.GroupKind{}, context.Cause(ctx)
		}
		if err != nil {
			return schema.GroupKind{}, fmt.Errorf("%s: %w", file, err)
		}
		if e.IsWrite() || e.Object.Group != "" {
			return schema.GroupKind{Group: e.Object.Group, Kind: e.Object.Kind}, nil
		}
	}
}

// reportRun is what the report.json of an opcert report directory says
// of the run whose timeline a file is, and of how its command judged.
type reportRun struct {
	reports.Run
	judging *reports.Judging
}

// maxReportJSON is the most analyze reads of the report.json beside a
// timeline: a self-test's, the largest opcert writes, is a few MiB.
const maxReportJSON = 64 << 20

// inReport is the run whose timeline file is, when the file lies in an
// opcert report directory (DIR/timelines/F, with DIR/report.json naming
// it). A report.json that is missing or does not read as a report is no
// report; one that is not a regular file or is larger than maxReportJSON
// is an error (it is not read: a FIFO would block, a device never end).
func inReport(ctx context.Context, file string) (reportRun, bool, error) {
	path := filepath.Join(filepath.Dir(filepath.Dir(file)), "report.json")
	data, err := bounded.ReadFile(ctx, path, maxReportJSON)
	var notRegular *bounded.NotRegularError
	var tooLarge *bounded.TooLargeError
	switch {
	case errors.As(err, &notRegular) || errors.As(err, &tooLarge):
		return reportRun{}, false, fmt.Errorf("%s lies in a report directory whose %w", file, err)
	case ctx.Err() != nil:
		return reportRun{}, false, context.Cause(ctx)
	case err != nil:
		return reportRun{}, false, nil
	}
	r, ok := reportRunOf(data, file)
	return r, ok, nil
}

// reportRunOf reads a report.json for the run whose timeline file is.
func reportRunOf(data []byte, file string) (reportRun, bool) {
	var rep reports.Report
	if json.Unmarshal(data, &rep) != nil {
		return reportRun{}, false
	}
	rel := filepath.Join("timelines", filepath.Base(file))
	for _, r := range rep.Runs {
		if filepath.Clean(r.Timeline) == rel {
			return reportRun{Run: r, judging: rep.Judging}, true
		}
	}
	return reportRun{}, false
}

func sortedNames(mechs map[string]conformance.Mechanism) []string {
	var names []string
	for n := range mechs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func mechanismNames(mechs map[string]conformance.Mechanism) string {
	return strings.Join(sortedNames(mechs), ", ")
}

// scanTolerance is the tolerance a timeline file's lag needs (its first n
// bytes; all of it for n < 0), scanned ahead of judging until ctx is done.
func scanTolerance(ctx context.Context, file string, n int64) (*time.Duration, error) {
	f, err := bounded.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bounded.Reader(ctx, f)
	if n >= 0 {
		r = io.LimitReader(r, n)
	}
	lag, err := timeline.ScanLag(r)
	if err != nil {
		return nil, err
	}
	tol := lag.Tolerance()
	return &tol, nil
}
