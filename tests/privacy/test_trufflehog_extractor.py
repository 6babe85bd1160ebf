"""scripts/gen_trufflehog_corpus.py: the Go subset its test files use, evaluated as Go would."""

from __future__ import annotations

import importlib.util
import pathlib

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "gen_trufflehog_corpus.py"
_spec = importlib.util.spec_from_file_location("gen_trufflehog_corpus", SCRIPT)
assert _spec is not None and _spec.loader is not None
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)

GO_TEST = """
var (
	validPattern   = "PMAK-aMUVdak2ohpOeeJQVlb1G9EW-0f1e2d3c4b5a69788796a5b4c3d2e1f0aa"
	secret         = "Zq8VfR2mXk41" + "pLsT9wYc"
	keyword        = "postman"
	config         = `
machine api.example.com
  password Zq8VfR2mXk41pLsT9wYc
`
)

func TestPostman_Pattern(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{
			name:  "valid pattern - with keyword",
			input: fmt.Sprintf("%s token = '%s'\\n", keyword, validPattern),
			want:  []string{validPattern},
		},
		{
			name:  "raw config",
			input: config,
			want:  []string{"user:" + secret},
		},
		{
			name:  "invalid pattern",
			input: fmt.Sprintf("%s = '%s'", keyword, strings.Repeat("x", 3)),
			want:  []string{},
		},
		{
			name:  "unknown call",
			input: makeInput(keyword),
			want:  []string{secret},
		},
	}
"""


def test_cases_are_evaluated_and_wanted_secrets_found_in_their_input() -> None:
    cases, skipped = gen.test_cases(GO_TEST)
    assert skipped == 1  # makeInput(...) is not Go the extractor knows
    (first_input, first_want), (second_input, second_want) = cases
    assert first_input == "postman token = 'PMAK-aMUVdak2ohpOeeJQVlb1G9EW-0f1e2d3c4b5a69788796a5b4c3d2e1f0aa'\n"
    assert gen.secrets_in(first_input, first_want) == [
        "PMAK-aMUVdak2ohpOeeJQVlb1G9EW-0f1e2d3c4b5a69788796a5b4c3d2e1f0aa"
    ]
    assert "password Zq8VfR2mXk41pLsT9wYc" in second_input
    assert gen.secrets_in(second_input, second_want) == ["Zq8VfR2mXk41pLsT9wYc"]  # the part the input holds


def test_addresses_are_not_secrets_and_shapes_and_splits_are_stable() -> None:
    assert (
        gen.secrets_in("url https://vault-cluster-xyz.hashicorp.cloud", ["//vault-cluster-xyz.hashicorp.cloud"]) == []
    )
    assert gen.shape("550e8400-e29b-41d4-a716-446655440000") == "hex"
    assert gen.shape("shippo_aaaaaaaaaaaaaaaaaaaaaaaa") == "repetitive"
    assert gen.shape("Zq8VfR2mXk41pLsT9wYc") == "random"
    assert gen.split_of("postman") == gen.split_of("postman") in ("frozen", "tuning")
