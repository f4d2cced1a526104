package conformance_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/apiserver"
)

// Process mode puts each write down to the user the API server
// authenticated: the world's audit names the user of every write a
// process's user made, by the resourceVersion it left, and nobody for
// opcert's own writes.
var _ = Describe("the API server's audit of the processes' writes", func() {
	It("names the process's user for its writes, and no one for opcert's", func(ctx context.Context) {
		user := "opcert:operator/" + prefix() + "audited"
		_, cfg, err := api.AddUser(user, "")
		Expect(err).NotTo(HaveOccurred())
		proc, err := client.New(cfg, client.Options{Scheme: api.Scheme})
		Expect(err).NotTo(HaveOccurred())

		co := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: prefix() + "audited"}}
		Expect(proc.Create(ctx, co)).To(Succeed())
		Expect(api.Writer(ctx, co.ResourceVersion, 5*time.Second)).To(Equal(user))
		co.Status.Conditions = []configv1.ClusterOperatorStatusCondition{{Type: configv1.OperatorAvailable,
			Status: configv1.ConditionTrue, Reason: "AsExpected", LastTransitionTime: metav1.Now()}}
		Expect(proc.Status().Update(ctx, co)).To(Succeed())
		Expect(api.Writer(ctx, co.ResourceVersion, 5*time.Second)).To(Equal(user))

		co.Status.Conditions[0].Message = "Written by opcert"
		Expect(api.Client.Status().Update(ctx, co)).To(Succeed())
		_, err = api.Writer(ctx, co.ResourceVersion, 300*time.Millisecond)
		Expect(err).To(MatchError(apiserver.ErrNotAudited))
	})
})
