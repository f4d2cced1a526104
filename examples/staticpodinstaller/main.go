package staticpodinstaller

import (
	"context"
	"errors"
	"flag"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// env is an OPCERT_ variable, the flag's default.
func env(key string) string { return os.Getenv("OPCERT_" + key) }

// Main installs the revision the command line's args name (flags, each
// defaulting to its OPCERT_ variable), waiting for the lock until SIGTERM
// or an interrupt.
func Main(args []string) error {
	fs := flag.NewFlagSet("staticpodinstaller", flag.ContinueOnError)
	var cfg Config
	revision, _ := strconv.Atoi(env("REVISION"))
	fs.StringVar(&cfg.Operand, "operand", "kube-apiserver", "the operand's name")
	fs.IntVar(&cfg.Revision, "revision", revision, "the revision to install")
	fs.StringVar(&cfg.SourceDir, "source-dir", env("SOURCE_DIR"), "the revision's files as the operator rendered them")
	fs.StringVar(&cfg.ResourcesDir, "resources-dir", env("RESOURCES_DIR"), "the revisions' resource directories")
	fs.StringVar(&cfg.ManifestsDir, "manifests-dir", env("MANIFESTS_DIR"), "the kubelet's manifest directory")
	fs.StringVar(&cfg.LockFile, "lock-file", env("LOCK_FILE"), "the installer lock")
	fs.DurationVar(&cfg.Interval, "interval", 20*time.Millisecond, "how often it looks at a held lock")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.Revision <= 0 || cfg.SourceDir == "" || cfg.ResourcesDir == "" || cfg.ManifestsDir == "" || cfg.LockFile == "" {
		return errors.New("give every flag (or its OPCERT_ variable)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	return Install(ctx, cfg)
}
