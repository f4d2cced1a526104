package payload

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// fixtures holds the example payloads.
const fixtures = "../fixtures/payloads"

func TestReadGoodPayload(t *testing.T) {
	p, err := Read(t.Context(), filepath.Join(fixtures, "good"))
	if err != nil {
		t.Fatal(err)
	}
	wantFiles := []string{
		"0000_50_example-operator_00_namespace.yaml",
		"0000_50_example-operator_02_rbac.yaml",
		"0000_50_example-operator_03_deployment.yaml",
		"0000_50_example-operator_05_config.json",
		"0000_50_example-operator_07_clusteroperator.yaml",
	}
	if !slices.Equal(p.Files, wantFiles) {
		t.Errorf("Files %q, want %q", p.Files, wantFiles)
	}
	if len(p.Ignored) != 1 || p.Ignored[0].Name != "image-references" || !p.Ignored[0].Known {
		t.Errorf("Ignored %+v, want image-references, known", p.Ignored)
	}
	if len(p.Problems) != 0 {
		t.Errorf("Problems %v", p.Problems)
	}
	var got []string
	for i, m := range p.Manifests {
		if m.Seq != i {
			t.Errorf("manifest %d has Seq %d", i, m.Seq)
		}
		got = append(got, fmt.Sprintf("%s#%d@%d %s %s %s/%s %s %s", m.File, m.Index, m.Line, m.APIVersion, m.Kind, m.Namespace, m.Name, m.RunLevel, m.Component))
	}
	want := []string{
		"0000_50_example-operator_00_namespace.yaml#0@1 v1 Namespace /example-operator 50 example-operator",
		"0000_50_example-operator_02_rbac.yaml#0@3 v1 ServiceAccount example-operator/example-operator 50 example-operator",
		"0000_50_example-operator_02_rbac.yaml#1@9 rbac.authorization.k8s.io/v1 ClusterRoleBinding /example-operator 50 example-operator",
		"0000_50_example-operator_03_deployment.yaml#0@1 apps/v1 Deployment example-operator/example-operator 50 example-operator",
		"0000_50_example-operator_05_config.json#0@1 v1 ConfigMap example-operator/example-operator-config 50 example-operator",
		"0000_50_example-operator_07_clusteroperator.yaml#0@1 config.openshift.io/v1 ClusterOperator /example 50 example-operator",
	}
	if !slices.Equal(got, want) {
		t.Errorf("manifests\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// The sweep's order is the byte order of the names, the directory's own
// files only, whatever order they were written in.
func TestReadFSOrderAndIgnored(t *testing.T) {
	obj := func(name string) *fstest.MapFile {
		return &fstest.MapFile{Data: fmt.Appendf(nil, cm, name)}
	}
	fsys := fstest.MapFS{
		"0000_9_b_x.yaml":        obj("nine"),
		"0000_10_a_x.yml":        obj("ten"),
		"Z.json":                 obj("upper"),
		"a.json":                 obj("lower"),
		"notes.txt":              obj("notes"),
		"sub/0000_01_a_x.yaml":   obj("nested"),
		"broken.yaml":            {Data: []byte("a: [\n")},
		"0000_10_a_y.yaml.bak":   obj("backup"),
		"0000_05_c_x.yaml":       {Data: []byte("# nothing yet\n")},
		"0000_05_c_y.yaml":       {Data: []byte("")},
		"image-references":       {Data: []byte("kind: ImageStream\n")},
		"0000_10_a_z.yaml/inner": obj("a directory named like a file"),
	}
	p, err := ReadFS(t.Context(), fsys)
	if err != nil {
		t.Fatal(err)
	}
	wantFiles := []string{"0000_05_c_x.yaml", "0000_05_c_y.yaml", "0000_10_a_x.yml", "0000_9_b_x.yaml", "Z.json", "a.json", "broken.yaml"}
	if !slices.Equal(p.Files, wantFiles) {
		t.Errorf("Files %q, want %q", p.Files, wantFiles)
	}
	var names []string
	for _, m := range p.Manifests {
		names = append(names, m.Name)
	}
	if want := []string{"ten", "nine", "upper", "lower"}; !slices.Equal(names, want) {
		t.Errorf("manifests %q, want %q", names, want)
	}
	var ignored []string
	for _, ig := range p.Ignored {
		ignored = append(ignored, fmt.Sprintf("%s dir=%v known=%v", ig.Name, ig.Dir, ig.Known))
	}
	wantIgnored := []string{"0000_10_a_y.yaml.bak dir=false known=false", "0000_10_a_z.yaml dir=true known=false",
		"image-references dir=false known=true", "notes.txt dir=false known=false", "sub dir=true known=false"}
	if !slices.Equal(ignored, wantIgnored) {
		t.Errorf("ignored %q, want %q", ignored, wantIgnored)
	}
	if len(p.Problems) != 1 || p.Problems[0].File != "broken.yaml" || p.Problems[0].Line != 1 {
		t.Errorf("problems %v, want one in broken.yaml:1", p.Problems)
	}
}

func TestReadRefusesWhatIsNoDirectory(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(file, []byte("kind: A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "nope"), "nope does not exist: give the directory that holds the manifests"},
		{file, "a.yaml is not a directory: give the directory that holds the manifests"},
	} {
		if _, err := Read(t.Context(), tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Read(%s): %v, want it to say %q", tc.path, err, tc.want)
		}
	}
}

// A file that cannot be read (here a link to a directory, which the
// listing shows as a file) is one problem; the others are still read.
func TestReadUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), fmt.Appendf(nil, cm, "a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "b.yaml")); err != nil {
		t.Fatal(err)
	}
	p, err := Read(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Manifests) != 1 || len(p.Problems) != 1 || p.Problems[0].File != "b.yaml" || !strings.HasPrefix(p.Problems[0].Message, "cannot be read: ") {
		t.Errorf("manifests %d, problems %v", len(p.Manifests), p.Problems)
	}
}
