package conformance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/opcert/opcert/sim"
)

// A step's error is the step's own unless it happened on the way: the
// API server's refusals and the client's (no kind, no namespace) are the
// scenario's; a broken connection, a cut-off actor or an ended context
// are left for stopReason to blame on the environment or the caller.
func TestStepFault(t *testing.T) {
	refusedConn := &url.Error{Op: "Post", URL: "https://127.0.0.1:1", Err: syscall.ECONNREFUSED}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"the server's refusal", apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "nowhere"), true},
		{"no kind", &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "example.com", Kind: "Nope"}}, true},
		{"no namespace", fmt.Errorf("an empty namespace may not be set during creation"), true},
		{"a connection refused", refusedConn, false},
		{"wrapped", fmt.Errorf("step: %w", refusedConn), false},
		{"a connection cut mid-answer", io.ErrUnexpectedEOF, false},
		{"an actor cut off", fmt.Errorf("scenario: %w", sim.ErrCutOff), false},
		{"a context ended", context.Canceled, false},
		{"none", nil, false},
	} {
		if got := stepFault(context.Background(), tc.err); got != tc.want {
			t.Errorf("%s (%v): stepFault %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if stepFault(ctx, errors.New("anything")) {
		t.Error("an error after the context ended was held to the step")
	}
}
