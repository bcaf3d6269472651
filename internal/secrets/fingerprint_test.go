package secrets

import "testing"

// The fingerprint is stable within a build and changes with any rule.
func TestRulesFingerprintFollowsTheRules(t *testing.T) {
	a := RulesFingerprint()
	if a != RulesFingerprint() || a == [32]byte{} {
		t.Fatal("the fingerprint is not stable")
	}
	saved := rules[0].entropy
	rules[0].entropy += 0.5
	defer func() { rules[0].entropy = saved }()
	fresh := sumRules()
	rules[0].entropy = saved
	if fresh == a {
		t.Error("a changed rule kept the fingerprint")
	}
	if sumRules() != a {
		t.Error("the fingerprint is not a function of the rules")
	}
}
