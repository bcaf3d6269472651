// Package secretstest builds realistic fake credentials for tests of the
// write gate. They are assembled from pieces at run time, so no file in
// the repository holds a string a secret scanner would flag.
package secretstest

import "strings"

// Secret is a fake credential and the gitleaks rule that finds it.
type Secret struct {
	Kind string // short name, also the env var suffix in testscripts
	Rule string
	Text string // the line a careless agent would write
}

// alnum is a fixed, high-entropy run of letters and digits to cut keys
// from (no randomness: every run sees the same secrets).
const alnum = "R8x2Lq9ZpT4vW7nK1mB5cY3dF6gH0jS2aE9uQ7tN4wX8zC1vB6"

// Secrets returns one fake credential per kind the gate must refuse:
// GitHub, AWS, Slack, Stripe, a PEM private key and a generic API key.
func Secrets() []Secret {
	pem := "-----" + "BEGIN RSA PRIVATE KEY" + "-----\n" +
		"MIIEow" + "IBAAKCAQEA" + alnum + "\n" + alnum + "Zq\n" +
		"-----" + "END RSA PRIVATE KEY" + "-----"
	return []Secret{
		{"GITHUB", "github-pat", "export GITHUB_TOKEN=" + "gh" + "p_" + alnum[:36]},
		{"AWS", "aws-access-token", "aws key " + "AK" + "IA" + "Q3EGR7TKW4XB2ZPY"},
		{"SLACK", "slack-bot-token", "slack bot: " + "xo" + "xb-" + "2468013579-1357924680-" + alnum[:24]},
		{"STRIPE", "stripe-access-token", "stripe " + "sk" + "_live_" + alnum[:24]},
		{"PEM", "private-key", pem},
		{"GENERIC", "generic-api-key", `api_` + `key = "` + strings.ToLower(alnum[:8]) + alnum[10:26] + `"`},
	}
}

// Ordinary returns text that looks random but is not a credential: a
// commit SHA, a UUID, a sha256 digest and base64 of ordinary text. The
// gate must let all of it through.
func Ordinary() []string {
	return []string{
		"Fixed in commit 3f9a2c1e8b7d6f5a4c3b2a1908f7e6d5c4b3a291.",
		"The request id is 123e4567-e89b-12d3-a456-426614174000.",
		"Image digest sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"The fixture is VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw== (base64).",
	}
}
