"""Command-line entry points: `knobelcup` (play, bot, admin), the demo on the local
service (`make demo`) and the service itself (`make serve`)."""
