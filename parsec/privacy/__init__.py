"""Secret masking and exclusion rules, used by every writer before anything is stored or sent.

`parsec.privacy.masking.mask(text)` replaces credentials by `[REDACTED:<kind>]`;
`parsec.privacy.filters.PrivacyFilter` applies the [privacy] config (exclusions, leading space,
privacy mode, environment allowlist). Standard library only, so the daemon's hot path stays cheap.
"""
