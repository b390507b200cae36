"""The operator's console: figures for Prometheus, health, drain, HAProxy's agent-check, evolution-admin's commands."""
