#!/usr/bin/env bash
# The "run" step of action.yml, kept in a file so that tests can run it with the environment
# GitHub provides (GITHUB_ACTIONS, GITHUB_WORKSPACE, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT).
# Inputs arrive as DIMLINT_PATHS, DIMLINT_ARGS, DIMLINT_SARIF, DIMLINT_SARIF_FILE; DIMLINT names
# the executable (default: dimlint on PATH).
set -uo pipefail

cd "${GITHUB_WORKSPACE:-.}" || exit 2

read -r -a paths <<< "${DIMLINT_PATHS:-.}"
read -r -a extra <<< "${DIMLINT_ARGS:-}"
command=("${DIMLINT:-dimlint}" check --output-format github)
if [ "${DIMLINT_SARIF:-false}" = "true" ]; then
  sarif_file="${DIMLINT_SARIF_FILE:-dimlint.sarif}"
  command+=(--sarif-file "$sarif_file")
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    echo "sarif-file=$sarif_file" >> "$GITHUB_OUTPUT"
  fi
fi

"${command[@]}" "${extra[@]}" "${paths[@]}"
