"""Generated from proto/stratum/v1/stratum.proto by `make proto` (python -m serving.protogen). Do not edit."""
