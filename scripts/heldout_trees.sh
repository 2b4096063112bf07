#!/bin/bash
# Working trees for a held-out measurement (issue 20, item 5), as BATCH7.md/BATCH8.md describe:
#   scripts/heldout_trees.sh DEST owner/name...
# Each repository's fetched snapshot (/work/.mirror/<owner>+<name>/repo, brought by the fetch
# tool) is extracted at HEAD into DEST/<owner>__<name> (blob by blob, skipping absent blobs,
# when `git archive` cannot write them all), then given that HEAD's index (.git/index), as a
# checkout has, so a walk knows which files git tracks.
set -u
dest=$1; shift
for n in "$@"; do
  g=/work/.mirror/${n/\//+}/repo
  d=$dest/${n/\//__}
  rm -rf "$d"; mkdir -p "$d"
  if ! (set -o pipefail; git --git-dir="$g" archive HEAD 2>/dev/null | tar -x -C "$d" 2>/dev/null); then
    rm -rf "$d"; mkdir -p "$d"
    git --git-dir="$g" ls-tree -r HEAD | while IFS=$'\t' read -r meta path; do
      set -- $meta
      [ "$2" = blob ] || continue
      mkdir -p "$d/$(dirname "$path")"
      if [ "$1" = 120000 ]; then ln -s "$(git --git-dir="$g" cat-file blob "$3")" "$d/$path"; continue; fi
      git --git-dir="$g" cat-file blob "$3" > "$d/$path" 2>/dev/null || { rm -f "$d/$path"; echo "absent: $n $path" >&2; }
    done
  fi
  mkdir -p "$d/.git" && GIT_INDEX_FILE="$d/.git/index" git --git-dir="$g" read-tree HEAD
  echo "$n $(git --git-dir="$g" rev-parse HEAD) $(find "$d" -path "$d/.git" -prune -o -type f -print | wc -l) files"
done
