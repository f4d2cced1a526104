package staticpodpruner

import (
	"errors"
	"flag"
	"os"
	"strconv"
)

// env is an OPCERT_ variable, the flag's default.
func env(key string) string { return os.Getenv("OPCERT_" + key) }

// Main prunes as the command line's args say (flags, each defaulting to
// its OPCERT_ variable).
func Main(args []string) error {
	fs := flag.NewFlagSet("staticpodpruner", flag.ContinueOnError)
	var cfg Config
	keep, _ := strconv.Atoi(env("KEEP"))
	fs.StringVar(&cfg.Operand, "operand", "kube-apiserver", "the operand's name")
	fs.StringVar(&cfg.ResourcesDir, "resources-dir", env("RESOURCES_DIR"), "the revisions' resource directories")
	fs.IntVar(&cfg.Keep, "keep", keep, "how many of the newest revisions to keep")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.ResourcesDir == "" || cfg.Keep <= 0 {
		return errors.New("give --resources-dir and a --keep above 0 (or their OPCERT_ variables)")
	}
	return Prune(cfg)
}
