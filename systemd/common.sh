# shellcheck shell=bash
# Shared by install.sh and update.sh (sourced, not run).

# Run a step, or only show it when DRY_RUN=1.
run() {
    if [ "$DRY_RUN" = 1 ]; then
        local shown="" arg
        for arg in "$@"; do
            if [[ $arg =~ ^[][A-Za-z0-9_./:=,@%+-]+$ ]]; then shown+=" $arg"; else shown+=" $(printf '%q' "$arg")"; fi
        done
        echo "would run:$shown"
    else
        "$@"
    fi
}
