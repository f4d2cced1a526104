package reports

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// browsers are the names a Chromium or Chrome goes by on PATH (Debian's
// package is chromium).
var browsers = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"}

// findBrowser is a browser on PATH. Without one the test is skipped, but
// not in CI (CI=true), where .ci/run installed Chromium: there a missing
// browser fails the test.
func findBrowser(t *testing.T) string {
	for _, name := range browsers {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("no browser on PATH (looked for %s); .ci/run installs Debian's chromium", strings.Join(browsers, ", "))
	}
	t.Skipf("no browser on PATH (looked for %s): install Chromium (Debian: apt-get install chromium) to run this test", strings.Join(browsers, ", "))
	return ""
}

// TestReportInBrowser opens a failing run's page in headless Chromium as a
// reader would: it loads without console errors, the rule table filters,
// every run has its timeline, and the summary's fail count, a failed chip
// of the rule table and a cited write on a timeline each land on the
// evidence in one click. The page and a screenshot (report.png) are left
// in the test's artifact directory (go test -artifacts keeps them).
func TestReportInBrowser(t *testing.T) {
	browser := findBrowser(t)
	dir := t.ArtifactDir()
	r, fsys := htmlReport()
	for name, f := range fsys {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteHTMLFile(dir, r); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.WindowSize(1280, 1000))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium refuses to run as root with its sandbox
	}
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(ctx)
	defer cancelTab()

	var mu sync.Mutex
	var problems []string
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				problems = append(problems, fmt.Sprintf("console %s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+ev.ExceptionDetails.Error())
		}
	})

	var rules, shown int
	var filtered string
	var svgs []int
	var shot []byte
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	run("load the page",
		chromedp.Navigate("file://"+filepath.Join(dir, HTMLFile)),
		chromedp.WaitVisible("#rule-table", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("#rule-table tbody tr").length`, &rules),
		chromedp.Evaluate(`[...document.querySelectorAll("section.run")].map(s => s.querySelectorAll(".tl .row svg").length)`, &svgs),
		chromedp.CaptureScreenshot(&shot),
	)
	// W-001..003 of the failing run, and testReport's STALE-001 (judged
	// in two runs: one row), STALE-002 and its three scenarios' EXPECT.
	if rules != 8 {
		t.Errorf("the rule table has %d rows, want 8", rules)
	}
	if len(svgs) != len(r.Runs) {
		t.Errorf("%d run sections, want %d", len(svgs), len(r.Runs))
	}
	for i, n := range svgs {
		if i == 0 && n < 5 || n < 1 {
			t.Errorf("run %d's timeline has %d rows", i+1, n)
		}
	}

	run("filter the rule table",
		chromedp.SetValue(`#rule-filter select[name=verdict]`, "fail", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector("#rule-filter select[name=verdict]").dispatchEvent(new Event("change")); `+
			`document.querySelectorAll("#rule-table tbody tr:not([hidden])").length`, &shown),
		chromedp.Text(`#rule-filter output`, &filtered, chromedp.ByQuery),
	)
	if shown != 2 || filtered != "2 of 8 rules" {
		t.Errorf("filtered on failures: %d rows shown, %q; want 2 (W-002 and STALE-001)", shown, filtered)
	}

	// Each way to a failure's evidence, clicked as a user clicks: at the
	// element's place on the screen.
	for _, tc := range []struct{ what, sel, want string }{
		{"the summary's fail count", "#fail-count", "ev-1-2"},
		{"a failed chip of the rule table", `#rule-table a.v.fail[href="#ev-3-1"]`, "ev-3-1"},
		{"a cited write on the timeline", `#tl-1 a.mk.m-cite`, "ev-1-2"},
	} {
		var target string
		var inView bool
		run("click "+tc.what,
			chromedp.Evaluate(`location.hash = ""; window.scrollTo(0, 0)`, nil),
			clickAt(tc.sel),
			chromedp.Poll(`location.hash.length > 1`, nil, chromedp.WithPollingTimeout(5*time.Second)),
			chromedp.Evaluate(`document.querySelector(":target") ? document.querySelector(":target").id : ""`, &target),
			chromedp.Evaluate(`(() => { const r = document.querySelector(":target").getBoundingClientRect(); `+
				`return r.top >= 0 && r.top < innerHeight; })()`, &inView),
		)
		if target != tc.want || !inView {
			t.Errorf("clicking %s landed on #%s (in view: %v), want #%s in view", tc.what, target, inView, tc.want)
		}
	}

	var tip string
	var tipShown bool
	run("focus a fault marker",
		chromedp.Focus(`#tl-1 g.mk.m-fault`, chromedp.ByQuery),
		chromedp.Evaluate(`!document.getElementById("tip").hidden`, &tipShown),
		chromedp.Text(`#tip`, &tip, chromedp.ByQuery),
	)
	if !tipShown || !strings.Contains(tip, "scenario kill Process/operator-0") {
		t.Errorf("focusing the death's marker shows %q (shown: %v)", tip, tipShown)
	}

	var viewBox string
	run("zoom to the failure",
		chromedp.Click(`#tl-1 .zoom button[data-a]:not([data-a="0"])`, chromedp.ByQuery),
		chromedp.AttributeValue(`#tl-1 .row svg`, "viewBox", &viewBox, nil, chromedp.ByQuery),
	)
	if strings.HasPrefix(viewBox, "0 0 1000") {
		t.Errorf("zooming to the failure left the timeline at %q", viewBox)
	}

	mu.Lock()
	for _, p := range problems {
		t.Error(p)
	}
	mu.Unlock()

	if _, err := png.Decode(bytes.NewReader(shot)); err != nil {
		t.Fatalf("the screenshot is no PNG: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
}

// clickAt scrolls the first element sel matches to the middle of the
// window (clear of the sticky header) and clicks its middle with the
// mouse, as a reader does (a marker is a thin line in an SVG).
func clickAt(sel string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var box struct{ X, Y float64 }
		err := chromedp.Evaluate(fmt.Sprintf(`(() => { const el = document.querySelector(%q); el.scrollIntoView({block: "center"}); `+
			`const r = el.getBoundingClientRect(); `+
			`return {X: r.left + r.width / 2, Y: r.top + r.height / 2}; })()`, sel), &box).Do(ctx)
		if err != nil {
			return err
		}
		return chromedp.MouseClickXY(box.X, box.Y).Do(ctx)
	})
}
