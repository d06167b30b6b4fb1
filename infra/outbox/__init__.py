"""What runs after a write: the domain events and their publisher (the table stream onto
EventBridge), the WebSocket push, the turn timers, the redrive of failed deliveries and
the Lambda invoker that starts it. Imports `infra.store`, the root of `infra` and `core`."""
