"""The eight Lambda entry points (template.yaml), each a few lines over the services that
`infra.bootstrap` builds: the HTTP API and its pages (`api`), the WebSocket API
(`socket`), the stream's publisher and timers, the progression, the timeouts, the
sweeper and the lifecycle jobs; `wiring` builds their services once per container."""
