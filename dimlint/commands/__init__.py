"""One module per subcommand, imported only when that subcommand runs."""
