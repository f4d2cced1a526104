package startupmonitor

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// env is an OPCERT_ variable, the flag's default.
func env(key string) string { return os.Getenv("OPCERT_" + key) }

// Main runs the monitor with the command line's args (flags, each
// defaulting to its OPCERT_ variable) until SIGTERM or an interrupt.
func Main(args []string) error {
	fs := flag.NewFlagSet("startupmonitor", flag.ContinueOnError)
	var cfg Config
	var timeout string
	revision, _ := strconv.Atoi(env("REVISION"))
	fs.StringVar(&cfg.Operand, "operand", "kube-apiserver", "the operand's name")
	fs.IntVar(&cfg.Revision, "revision", revision, "the revision it watches")
	fs.StringVar(&timeout, "timeout", env("TIMEOUT"), "how long the operand has to get ready")
	fs.DurationVar(&cfg.Interval, "interval", 100*time.Millisecond, "how often it looks")
	fs.StringVar(&cfg.Manifest, "manifest", env("MANIFEST"), "its own pod manifest")
	fs.StringVar(&cfg.ManifestsDir, "manifests-dir", env("MANIFESTS_DIR"), "the kubelet's manifest directory")
	fs.StringVar(&cfg.ResourcesDir, "resources-dir", env("RESOURCES_DIR"), "the revisions' resource directories")
	fs.StringVar(&cfg.LockFile, "lock-file", env("LOCK_FILE"), "the installer lock")
	fs.StringVar(&cfg.TerminationLog, "termination-log", env("TERMINATION_LOG"), "the operand's termination.log")
	fs.StringVar(&cfg.HealthURL, "health-url", env("HEALTH_URL"), "the operand's /healthz and /readyz")
	fs.StringVar(&cfg.Namespace, "namespace", env("NAMESPACE"), "the mirror pod's namespace")
	fs.StringVar(&cfg.Pod, "pod", env("POD"), "the mirror pod's name")
	if err := fs.Parse(args); err != nil {
		return err
	}
	d, err := time.ParseDuration(timeout)
	if err != nil {
		return fmt.Errorf("--timeout: %w", err)
	}
	cfg.Timeout = d
	if cfg.Revision <= 0 || cfg.Manifest == "" || cfg.ManifestsDir == "" || cfg.ResourcesDir == "" || cfg.LockFile == "" ||
		cfg.TerminationLog == "" || cfg.HealthURL == "" || cfg.Namespace == "" || cfg.Pod == "" {
		return fmt.Errorf("give every flag (or its OPCERT_ variable)")
	}
	rc, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(clientcmd.NewDefaultClientConfigLoadingRules(), nil).ClientConfig()
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	return New(cfg, client).Run(ctx)
}
