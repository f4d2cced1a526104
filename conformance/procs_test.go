package conformance_test

import (
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/process"
)

// keyHost hands out a user with a client key (a stand-in), which the
// process's kubeconfig holds.
type keyHost struct{}

func (keyHost) AddUser(name, server string) ([]byte, *rest.Config, error) {
	return nil, &rest.Config{TLSClientConfig: rest.TLSClientConfig{KeyData: []byte(secretKey)}}, nil
}

// secretKey stands for a client key; a kubeconfig holds it in base64.
const secretKey = "SECRET client key"

func (keyHost) RESTConfig() *rest.Config { return &rest.Config{Host: "https://127.0.0.1:1"} }
func (keyHost) Writer(context.Context, string, time.Duration) (string, error) {
	return "", errors.New("no audit here")
}

// A process's kubeconfig holds its user's client key: it is written 0600
// in a 0700 directory of the run directory, never beside the process's
// log (which goes into the report), and removed when the run ends.
func TestProcessKubeconfigsStayOutOfTheReport(t *testing.T) {
	logs, runDir := t.TempDir(), t.TempDir()
	p, err := conformance.NewProcesses(keyHost{}, logs, runDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start("operator/etcd", "operator", "etcd", process.Command{"sh", "-c", `cat "$KUBECONFIG"; exec sleep 30`}); err != nil {
		t.Fatal(err)
	}
	kcs, _ := filepath.Glob(filepath.Join(runDir, "*", "*.kubeconfig"))
	if len(kcs) != 1 {
		t.Fatalf("kubeconfigs in the run directory: %v", kcs)
	}
	for path, want := range map[string]os.FileMode{kcs[0]: 0o600, filepath.Dir(kcs[0]): 0o700 | os.ModeDir} {
		if fi, err := os.Stat(path); err != nil || fi.Mode() != want {
			t.Errorf("%s: %v %v, want %v", path, fi.Mode(), err, want)
		}
	}
	logPath := filepath.Join(logs, "operator-etcd.log")
	for deadline := time.Now().Add(5 * time.Second); ; <-time.After(20 * time.Millisecond) {
		if log, _ := os.ReadFile(logPath); strings.Contains(string(log), base64.StdEncoding.EncodeToString([]byte(secretKey))) {
			break // the process read its kubeconfig
		}
		if time.Now().After(deadline) {
			t.Fatal("the process did not read its kubeconfig")
		}
	}
	ended := p.Close()
	if len(ended) != 1 {
		t.Fatalf("processes %+v", ended)
	}
	if _, err := os.Stat(filepath.Dir(kcs[0])); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the kubeconfigs' directory outlived the run: %v", err)
	}
	_ = filepath.WalkDir(logs, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".kubeconfig") {
			t.Errorf("a kubeconfig beside the logs: %s", path)
		}
		return nil
	})
}

// A perturbation names an instance started in the run: any other name is
// an error, not a perturbation silently lost.
func TestPerturbationsNameAStartedInstance(t *testing.T) {
	p, err := conformance.NewProcesses(keyHost{}, t.TempDir(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	perturb := func() []error {
		return []error{p.CrashAfter("operator/etcd", 1, func() {}), p.LoseEvents("operator/etcd", true)}
	}
	for _, err := range perturb() {
		if err == nil {
			t.Error("a perturbation of an instance never started was accepted")
		}
	}
	if err := p.Start("operator/etcd", "operator", "etcd", process.Command{"sleep", "30"}); err != nil {
		t.Fatal(err)
	}
	for _, err := range perturb() {
		if err != nil {
			t.Errorf("a perturbation of a started instance: %v", err)
		}
	}
}
