package staticpod

import "github.com/opcert/opcert/conformance/staticpod/contract"

// locked brackets ops with the installer lock when the lock is honoured.
func locked(honour bool, ops ...contract.Op) []contract.Op {
	if !honour {
		return ops
	}
	return append(append([]contract.Op{{Kind: contract.TakeLock}}, ops...), contract.Op{Kind: contract.ReleaseLock})
}
