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
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/opcert/opcert/bounded"
	"github.com/opcert/opcert/cluster"
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/record"
	"github.com/opcert/opcert/redact"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
	"github.com/opcert/opcert/visible"
)

type watchOptions struct {
	kubeconfig, context string
	mechanism           string
	out                 string
	duration, every     time.Duration
	strict              bool
	// timeScale multiplies the mechanism's thresholds, as a run's at
	// --time-scale (a run watched on opcert's API server).
	timeScale  float64
	mechanisms mechanismFlags
	judged     error  // of the last judging: exitVerdict of its report
	lost       string // the final judging's: what the recording lost and never reached again
}

func newWatch() *cobra.Command {
	o := watchOptions{}
	cmd := &cobra.Command{
		Use:   "watch --kubeconfig PATH --mechanism NAME [--for D] [--judge-every D] --out DIR",
		Short: "Record a live cluster, read-only, and judge what it records",
		Long: `Record a live cluster, read-only, and judge what it records.

opcert watch lists and watches the kinds the mechanism (--mechanism)
judges, ClusterOperators for stale and clusteroperator, SampleClusters
with their StatefulSets, Deployments, DaemonSets and Pods for stackable,
and records every
change as a timeline event: who wrote it (its field manager in
managedFields, and the role the mechanism gives that manager: for stale,
the managers --detector-manager names are the detector, by default
opcert's own detector's (opcert) and stale-detector, and every other
manager is the operator; for clusteroperator, cluster-version-operator is
the version operator and every other manager the operator; for
stackable, the managers --stackable-operator-manager names are the
operator, and no other), what it changed, and when it was seen, to the
millisecond. The report and the summary (WRITERS) name every manager seen
and the role its writes were put down to; a stale recording with no
detector write, or a stackable one with no operator write, is NOT JUDGED
(exit 4), saying so, rather than passed.

To watch a run on opcert's own API server (process mode), start it with
'opcert run --kubeconfig-out FILE' and give --kubeconfig FILE here; a run
at --time-scale S is watched with --time-scale S too, which scales the
thresholds as the run does (analyze of the run's own timeline judges it
exactly as the run did). A watch that expires or breaks
is listed again and the span is a recording gap, in which nothing is
judged. It never writes to the cluster: every request that is not a read
is refused before it leaves opcert.

The recording is judged, and the reports (junit.xml, report.json,
report.md, timelines/01-watch.jsonl) replace --out, when --for has run
out, every --judge-every, and on Ctrl-C (SIGINT, SIGTERM, SIGHUP), which
ends the recording. The rules get the tolerance the recording's lag
needs, stated in the report.

A convention rule (how a message reads) that fails gives a warning, which
fails nothing unless --strict.

Exit codes: 0 every rule passed (or only warned, unless --strict), 1 a
rule failed, 4 no rule could judge what was recorded (NOT JUDGED: e.g.
no detector write was seen), 2 a flag, the kubeconfig or --out is wrong (nothing
written), 3 the cluster cannot be reached or does not serve the kinds, or
was lost and not reached again by the end of the recording (the report
marks the watch ERROR, and the rules that passed before it not judged), or
a disk error; 128+n after a signal n (130 for Ctrl-C), once what was
recorded is judged and written.
A second signal stops at once and leaves --out as it was.`,
		Example: `  opcert watch --kubeconfig ~/.kube/config --mechanism clusteroperator --for 2h --out co-watch
  opcert watch --kubeconfig kc --mechanism stale --detector-manager my-detector --judge-every 10m --out stale-watch
  opcert run --time-scale 0.01 --kubeconfig-out run.kubeconfig --subject operator=exec:'./bin/manager --name {name}' &
  opcert watch --kubeconfig run.kubeconfig --mechanism stale --time-scale 0.01 --for 1m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	f := cmd.Flags()
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster to record (default: $KUBECONFIG, then ~/.kube/config)")
	f.StringVar(&o.context, "context", "", "the kubeconfig context to use (default: its current context)")
	f.StringVar(&o.mechanism, "mechanism", "", "the mechanism to record and judge, one a watch (needed when several can be recorded: clusteroperator and stale both record ClusterOperators)")
	f.StringVarP(&o.out, "out", "o", "opcert-watch", "report directory (replaced at each judging)")
	f.DurationVar(&o.duration, "for", 0, "how long to record (default: until Ctrl-C)")
	f.DurationVar(&o.every, "judge-every", 0, "judge what was recorded so far, and rewrite the reports, at this interval, "+minJudgeEvery.String()+" or more (default: only at the end)")
	f.BoolVar(&o.strict, "strict", false, "count the warnings of convention rules (how messages read) as failures: exit 1 instead of 0")
	o.timeScale = 1
	f.Var(timeScaleFlag{&o.timeScale}, "time-scale", "multiply the mechanism's thresholds by this (0.001 <= x <= 1), as opcert run --time-scale does: to watch a run played at that scale")
	o.mechanisms = addMechanismFlags(f)
	return cmd
}

// minJudgeEvery is the shortest --judge-every: a judging reads the whole
// recording and replaces the report directory, so a shorter interval
// (1ns rewrote the reports 3,592 times in 10 s) only burns the disk.
const minJudgeEvery = time.Second

func (o *watchOptions) run(cmd *cobra.Command) error {
	m, err := o.pick()
	if err != nil {
		return err
	}
	if o.duration < 0 || o.every < 0 {
		return errors.New("--for and --judge-every take a positive duration")
	}
	if o.every > 0 && o.every < minJudgeEvery {
		return fmt.Errorf("--judge-every %s: give %s or more; each judging reads the whole recording and rewrites the reports", o.every, minJudgeEvery)
	}
	loading := clientcmd.NewDefaultClientConfigLoadingRules()
	kubeconfigs := loading.GetLoadingPrecedence()
	for _, path := range append(loading.Precedence, o.kubeconfig) {
		if _, err := os.Stat(path); path == "" || err != nil {
			continue // client-go says what is missing
		}
		if err := bounded.Check(path, cluster.MaxKubeconfigBytes); err != nil {
			return fmt.Errorf("kubeconfig: %w", err)
		}
	}
	if o.kubeconfig != "" {
		loading.ExplicitPath, kubeconfigs = o.kubeconfig, []string{o.kubeconfig}
	}
	if err := checkOut(o.out, kubeconfigs...); err != nil {
		return err
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loading, &clientcmd.ConfigOverrides{CurrentContext: o.context}).ClientConfig()
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	cfg = record.ReadOnly(cfg)
	cfg.QPS, cfg.Burst = 50, 100
	stderr := cmd.ErrOrStderr()
	parent := cmd.Context()
	ctx, stop := context.WithCancel(parent)
	defer stop()
	if o.duration > 0 {
		ctx, stop = context.WithTimeout(ctx, o.duration)
		defer stop()
	}
	version, err := watchConnect(ctx, cfg, o.duration)
	if err != nil {
		return err
	}

	// The recording goes to a marked directory beside --out (swept by the
	// next opcert if this one is killed), each judging to a report swapped
	// in whole.
	work, err := stagingDir(o.out)
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	rec, err := newRecordingFile(filepath.Join(work, "timeline.jsonl"))
	if err != nil {
		return envError{err}
	}
	defer rec.close()
	recorder, err := record.New(record.Options{Config: cfg, Recording: conformance.RecordingOf(m), Sink: rec.write, Ready: func() {
		fmt.Fprintf(stderr, "opcert: recording %s on %s (%s), read-only\n", m.Name(), redact.URLs(cfg.Host), version)
	}, Lost: func(kind, why string) {
		fmt.Fprintf(stderr, "opcert: lost %s on %s: %s; listing it again until the cluster answers (nothing is judged meanwhile)\n", kind, redact.URLs(cfg.Host), why)
	}, Resumed: func(kind string) {
		fmt.Fprintf(stderr, "opcert: recording %s again\n", kind)
	}})
	if err != nil {
		return err
	}
	note := "ending the recording, judging it and writing the reports"
	interruptNote.Store(&note)
	decided.mu.Lock()
	decided.writesAfterSignal = true
	decided.mu.Unlock()

	done := make(chan error, 1)
	go func() { done <- recorder.Run(ctx) }()

	judge := func(final bool) error {
		return o.judge(parent, m, rec, redact.URLs(cfg.Host), version, final, cmd)
	}
	var tick <-chan time.Time
	if o.every > 0 {
		t := time.NewTicker(o.every)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-tick:
			if err := judge(false); err != nil {
				stop()
				<-done
				return err
			}
		case err := <-done:
			if err != nil {
				return envError{fmt.Errorf("recording %s: %w", redact.URLs(cfg.Host), err)}
			}
			if err := judge(true); err != nil {
				return err
			}
			return o.verdict(parent, redact.URLs(cfg.Host), stderr)
		}
	}
}

// pick is the mechanism to record: --mechanism's, or the only one that
// has a Recording (with stale and clusteroperator both recording
// ClusterOperators, --mechanism must name one).
func (o *watchOptions) pick() (conformance.Mechanism, error) {
	mechs, err := o.mechanisms.build()
	if err != nil {
		return nil, err
	}
	if o.mechanism != "" {
		m := mechs[o.mechanism]
		switch {
		case m == nil:
			return nil, fmt.Errorf("--mechanism %s: no such mechanism; mechanisms: %s", o.mechanism, mechanismNames(mechs))
		case conformance.RecordingOf(m) == nil:
			return nil, fmt.Errorf("--mechanism %s cannot be recorded from a live cluster yet", o.mechanism)
		}
		return o.scaled(m)
	}
	// One mechanism a watch: each gives the field managers its own roles
	// (stale's detector, clusteroperator's version operator), so two
	// recording one kind would file its writes differently.
	var found []string
	for _, n := range sortedNames(mechs) {
		if conformance.RecordingOf(mechs[n]) != nil {
			found = append(found, n)
		}
	}
	if len(found) != 1 {
		return nil, fmt.Errorf("give --mechanism: %d mechanisms can be recorded (%s); a watch records one", len(found), strings.Join(found, ", "))
	}
	return o.scaled(mechs[found[0]])
}

// scaled is m with its thresholds multiplied by --time-scale.
func (o *watchOptions) scaled(m conformance.Mechanism) (conformance.Mechanism, error) {
	s, ok := m.(conformance.Scalable)
	switch {
	case o.timeScale == 1:
		return m, nil
	case !ok:
		return nil, fmt.Errorf("--time-scale %g: mechanism %s cannot scale its times", o.timeScale, m.Name())
	}
	return s.Scaled(o.timeScale), nil
}

// verdict is the exit of a finished watch: the signal that ended it (main
// turns that into 128+n), the environment's fault if the recording ended
// having lost the cluster (exit 3, whatever the rules said of what came
// before: record.Judge marked the run), else its report's verdict.
func (o *watchOptions) verdict(parent context.Context, host string, stderr io.Writer) error {
	var env error
	if o.lost != "" {
		env = envError{fmt.Errorf("on %s, %s: the report marks the watch ERROR", host, o.lost)}
	}
	switch {
	case parent.Err() != nil:
		if env != nil { // main says only that a signal came
			fmt.Fprintln(stderr, "opcert:", env)
		}
		return context.Cause(parent)
	case env != nil:
		return env
	case o.judged != nil:
		return o.judged
	}
	return nil
}

// judge judges the recording so far and swaps the reports in.
func (o *watchOptions) judge(parent context.Context, m conformance.Mechanism, rec *recordingFile, host, version string, final bool, cmd *cobra.Command) error {
	size, err := rec.flush()
	if err != nil {
		return envError{err}
	}
	staging, err := stagingDir(o.out)
	if err != nil {
		return err
	}
	defer os.RemoveAll(staging)
	rel := filepath.Join("timelines", "01-watch.jsonl")
	if err := copyPrefix(rec.path, filepath.Join(staging, rel), size); err != nil {
		return envError{err}
	}
	in, err := os.Open(rec.path)
	if err != nil {
		return envError{err}
	}
	defer in.Close()
	src, err := record.Open(io.LimitReader(in, size), conformance.RecordingOf(m))
	if err != nil {
		return envError{err}
	}
	tol, err := scanTolerance(context.WithoutCancel(parent), rec.path, size)
	if err != nil {
		return envError{err}
	}
	// A judging is never cut short by the signal that asked for it.
	run, err := record.Judge(context.WithoutCancel(parent), src, conformance.Judged(m), record.Judgement{Name: "watch", Source: host, Tolerance: tol, Strict: o.strict, Ongoing: !final})
	if err != nil {
		return envError{fmt.Errorf("judging the recording: %w", err)}
	}
	run.Timeline = rel
	run.Subjects = map[string]string{"mechanism": m.Name()} // what the summary shows of who was judged
	if o.timeScale != 1 {
		run.TimeScale = o.timeScale
	}
	if !final {
		run.Description = "judged while recording: what was recorded so far"
	}
	rep := &reports.Report{Tool: "opcert", StartedAt: run.Start, Wall: run.Virtual, Judging: &reports.Judging{Flags: o.mechanisms.given(), Strict: o.strict},
		Environment: reports.Environment{KubeVersion: version, EtcdVersion: "not seen (a live cluster)", Assets: host}, Runs: []reports.Run{run}}
	if err := reports.WriteAll(staging, rep); err != nil {
		return envError{err}
	}
	o.judged = exitVerdict(rep)
	if run.Stopped == reports.StopEnvironment { // only the final judging: the recording is over
		o.lost = run.Error
	}
	if err := commitReport(staging, o.out, nil); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if final {
		fmt.Fprintln(out)
		reports.WriteSummary(out, rep)
		fmt.Fprintf(out, "\nreports in %s (junit.xml, report.json, report.md, timelines/)\n", visible.Quote(o.out))
	} else {
		fmt.Fprintf(cmd.ErrOrStderr(), "opcert: judged %s\n", run.Headline())
	}
	return nil
}

// serverVersion asks the cluster its version, which also proves the
// kubeconfig reaches it.
func serverVersion(cfg *rest.Config) (string, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return "", err
	}
	v, err := dc.ServerVersion()
	if err != nil {
		return "", err
	}
	return v.GitVersion, nil
}

// recordingFile is the recording's timeline as it grows: one JSON event a
// line, buffered, flushed before each judging.
type recordingFile struct {
	mu   sync.Mutex
	path string
	f    *os.File
	w    *bufio.Writer
	enc  *json.Encoder
}

func newRecordingFile(path string) (*recordingFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriterSize(f, 256<<10)
	return &recordingFile{path: path, f: f, w: w, enc: json.NewEncoder(visible.JSONWriter(w))}, nil
}

func (r *recordingFile) write(e timeline.Event, _ *unstructured.Unstructured) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.enc.Encode(e)
}

// flush writes out what is buffered and returns the file's length.
func (r *recordingFile) flush() (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.w.Flush(); err != nil {
		return 0, err
	}
	return r.f.Seek(0, io.SeekCurrent)
}

func (r *recordingFile) close() { _ = r.f.Close() }

// copyPrefix copies the first n bytes of src to dst, making its directory.
func copyPrefix(src, dst string, n int64) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.CopyN(out, in, n); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
