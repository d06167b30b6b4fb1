"""The capacity model: what a tournament asks of AWS, against its quotas (docs/capacity.md).

Pure arithmetic over data files, in import order: `calibration` (the per-unit counts of
AWS operations counted on the served stack, `calibration.json`), `quotas` (the AWS
defaults per Region, `quotas.json`, and an operator's overrides), `prices` (public
on-demand prices, `prices.json`), `model` (peak demand per quota, durations, cost),
`report` (the text `knobelcup plan` prints).
"""
