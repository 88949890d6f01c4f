# Pieces of the desktop smoke tests, sourced by .ci/desktop-smoke (the built
# app, make smoke) and .ci/package-test (the installed .deb, make
# package-test). Each runs under Xvfb and a private D-Bus session; see
# smoke_reexec. SMOKE_NAME prefixes the messages.

: "${SMOKE_NAME:=smoke}"

# smoke_reexec SCRIPT ARGS...: run SCRIPT again under xvfb-run (a 1280×800
# screen) and dbus-run-session, unless it is that run already.
smoke_reexec() {
  if [ -z "${SMOKE_INNER:-}" ]; then
    exec env SMOKE_INNER=1 xvfb-run -a -s '-screen 0 1280x800x24' dbus-run-session -- bash "$@"
  fi
}

fail() { echo "$SMOKE_NAME: FAIL: $*" >&2; exit 1; }
say() { echo "$SMOKE_NAME: $*"; }

# stop PID NAME [LOG]: SIGTERM, then the process must exit 0 within 10 s;
# on failure LOG (its stdout and stderr) is printed, so a panic shows.
stop() {
  kill -TERM "$1"
  for _ in $(seq 40); do kill -0 "$1" 2>/dev/null || break; sleep 0.25; done
  if kill -0 "$1" 2>/dev/null; then kill -KILL "$1"; [ -z "${3:-}" ] || cat "$3" >&2; fail "$2 still running 10 s after SIGTERM"; fi
  local status=0
  wait "$1" || status=$?
  if [ "$status" != 0 ]; then [ -z "${3:-}" ] || cat "$3" >&2; fail "$2 exited $status after SIGTERM, want 0"; fi
  say "$2 exited 0 on SIGTERM"
}

# no_criticals LOG WHAT: LOG (the app's stdout and stderr) has no GTK or
# GLib critical, such as the "gtk_main_quit: assertion 'main_loops != NULL'
# failed" of a second quit racing the main loop's end off the main thread
# (a lost race crashes the app: exit 2). WHAT names the step.
no_criticals() {
  if grep -q -- '-CRITICAL \*\*' "$1"; then cat "$1" >&2; fail "GTK/GLib criticals in the app's log after $2"; fi
}

# find_window PID LOG: sets found to the window titled exactly Switchboard
# that PID shows, waiting up to 30 s.
find_window() {
  found=""
  for _ in $(seq 120); do # up to 30 s
    kill -0 "$1" 2>/dev/null || { cat "$2" >&2; fail "switchboard exited before showing a window"; }
    for w in $(xdotool search --onlyvisible --name Switchboard 2>/dev/null); do
      # search is a case-insensitive regexp; GTK's leader window is "switchboard".
      if [ "$(xdotool getwindowname "$w" 2>/dev/null)" = Switchboard ]; then found=$w; break; fi
    done
    [ -n "$found" ] && break
    sleep 0.25
  done
  [ -n "$found" ] || { cat "$2" >&2; fail "no window titled Switchboard within 30 s"; }
}

# hub_answers DATADIR: the hub of the window runs in the same process; its
# API answers where DATADIR/hub.json says, and hub.json says a window is
# in front of it. Sets url.
hub_answers() {
  url=$(sed -n 's/.*"url": *"\([^"]*\)".*/\1/p' "$1/hub.json" 2>/dev/null || true)
  [ -n "$url" ] || fail "no hub.json in the data dir $1"
  curl -fsS "$url/healthz" | grep -q '"ok":true' || fail "the API at $url does not answer"
  grep -q '"window": *true' "$1/hub.json" || fail "hub.json does not say the hub runs behind a window"
  say "the API answers at $url"
}

# window_paints WINDOW SHOT: a capture of WINDOW, saved to SHOT, is not a
# single colour (WebKit's page over the background colour). Up to 15 s for
# the first paint.
window_paints() {
  mkdir -p "$(dirname "$2")"
  local colours=0
  for _ in $(seq 15); do
    sleep 1
    import -window "$1" "$2" 2>/dev/null || continue
    colours=$(identify -format '%k' "$2" 2>/dev/null || echo 0)
    [ "$colours" -gt 1 ] && break
  done
  [ "$colours" -gt 1 ] || fail "the window did not paint: its screenshot $2 has $colours colour(s)"
  say "window screenshot in $2 ($colours colours)"
}

# tray_child PID LOG: the desktop app PID started switchboard-tray as its
# child (tray.enabled), within 10 s. Sets traypid.
tray_child() {
  traypid=""
  for _ in $(seq 40); do
    traypid=$(pgrep -P "$1" -f switchboard-tray || true)
    [ -n "$traypid" ] && break
    sleep 0.25
  done
  [ -n "$traypid" ] || { cat "$2" >&2; fail "the desktop app did not start switchboard-tray"; }
  say "the app started the tray (pid $traypid)"
}

# gone PID NAME: PID exits within 5 s.
gone() {
  for _ in $(seq 20); do kill -0 "$1" 2>/dev/null || break; sleep 0.25; done
  ! kill -0 "$1" 2>/dev/null || fail "$2 $1 still runs"
}
