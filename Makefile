# Switchboard. On a fresh Debian/Ubuntu machine (Go 1.26, gcc, Node 20+/npm):
#
#   make run     install what is missing, build, start the desktop app
#   make test    install what is missing, then every check CI runs
#
# Every target installs what it needs first, and only what is missing:
# apt packages (as root, or through sudo), frontend/node_modules (npm ci when
# package.json or package-lock.json changed), and Go tools into .tools/bin
# (repo-local and git-ignored, so a tool's version is the one pinned here,
# whatever else is on PATH). `make help` lists the targets.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build
MAKEFLAGS += --no-print-directory

GO ?= go
NPM ?= npm
MODULE := github.com/switchboard-hub/switchboard
# The build's identity (build/version.sh says how it is made), stamped into
# `switchboard version`, `switchboard-tray --version` and the package names.
VERSION ?= $(shell build/version.sh version)
COMMIT ?= $(shell build/version.sh commit)
BUILD_DATE ?= $(shell build/version.sh date)
LDFLAGS := -X $(MODULE)/app.version=$(VERSION) -X $(MODULE)/app.commit=$(COMMIT) \
	-X $(MODULE)/app.buildDate=$(BUILD_DATE) -X $(MODULE)/tray.version=$(VERSION)

# The window: Wails' production build on WebKitGTK 4.1 (Debian 12+, Ubuntu 22.04+).
DESKTOP_TAGS := desktop,production,webkit2_41
# The tray helper: getlantern/systray on libayatana-appindicator3.
TRAY_TAGS := desktop

APT_PACKAGES := pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev libayatana-appindicator3-dev
SMOKE_APT_PACKAGES := xvfb xauth xdotool dbus dbus-x11 haskell-status-notifier-item-utils imagemagick procps dialog
# The hosts tests (app/systest TestE2EHost*): a real sshd in a network
# namespace the test makes, reached with the real ssh client.
HOSTS_APT_PACKAGES := openssh-server openssh-client iproute2
# make package: dpkg-deb and dpkg-shlibdeps (Depends: from the binaries' libraries).
PACKAGE_APT_PACKAGES := dpkg-dev
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

TOOLS := $(CURDIR)/.tools
STATICCHECK_VERSION := v0.8.2
# Versioned folder: bumping the version installs the new one.
STATICCHECK := $(TOOLS)/staticcheck-$(STATICCHECK_VERSION)/staticcheck
WAILS_VERSION := v2.16.0
WAILS := $(TOOLS)/wails-$(WAILS_VERSION)/wails

NODE_STAMP := frontend/node_modules/.npm-ci.stamp
FRONTEND_SOURCES := $(shell find frontend/src frontend/public -type f 2>/dev/null) \
	frontend/index.html frontend/vite.config.ts frontend/svelte.config.js frontend/tsconfig.json

.PHONY: help deps deps-system deps-smoke deps-package deps-frontend deps-go deps-browser tools frontend build \
	headless run serve package package-test test check vet cross-check staticcheck fmt-check go-test \
	frontend-test smoke bench bench-large-repo bench-outside bench-hosts bench-desktop bench-firstpaint bindings screenshots-update clean acp-schema \
	deps-hosts host-builds

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

## ---- dependencies -------------------------------------------------------

deps: deps-system deps-smoke deps-hosts deps-frontend deps-go ## install everything build and test need (idempotent)

# $(call apt-install,PACKAGES): apt-get install those of PACKAGES that
# `dpkg -s` does not report installed; nothing at all when none is missing.
# Elsewhere than Debian/Ubuntu it names them and goes on.
define apt-install
	@if ! command -v dpkg >/dev/null; then \
		echo "$@: not a Debian/Ubuntu machine: install the equivalents of $(1) yourself"; \
		exit 0; \
	fi; \
	missing=""; \
	for p in $(1); do \
		case "$$(dpkg -s "$$p" 2>/dev/null)" in \
			*"Status: install ok installed"*) ;; \
			*) missing="$$missing $$p" ;; \
		esac; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "$@: installing$$missing"; \
		$(SUDO) apt-get update -q; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi
endef

# Guarantees: dpkg-deb and dpkg-shlibdeps for make package.
deps-package:
	$(call apt-install,$(PACKAGE_APT_PACKAGES))

# Guarantees: the GTK 3, WebKitGTK 4.1 and appindicator headers are there.
deps-system: ## apt packages for building the window and the tray (only those missing)
	$(call apt-install,$(APT_PACKAGES))

# Guarantees: Xvfb, xdotool and a D-Bus session daemon for make smoke.
deps-smoke:
	$(call apt-install,$(SMOKE_APT_PACKAGES))

# Guarantees: sshd, ssh and ip(8) for the hosts tests (as root: they make
# a network namespace and a user; SWITCHBOARD_HOSTS_E2E=require fails them
# where that cannot be done instead of skipping).
deps-hosts:
	$(call apt-install,$(HOSTS_APT_PACKAGES))

# Guarantees: frontend/node_modules matches package-lock.json.
deps-frontend: $(NODE_STAMP) ## npm ci, when the lock file changed since the last one
$(NODE_STAMP): frontend/package.json frontend/package-lock.json
	cd frontend && $(NPM) ci --no-audit --no-fund
	touch $@

# Guarantees: staticcheck $(STATICCHECK_VERSION) at $(STATICCHECK).
deps-go: $(STATICCHECK) ## Go tools into .tools/
$(STATICCHECK):
	GOBIN=$(dir $@) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

# Guarantees: the real ACP agents the acp tests can use are in .tools/, once
# acp/acptest/install-agents.sh exists (the acp tests fail, naming `make tools`, without them).
tools: ## agents for the acp integration tests
	@if [ -f acp/acptest/install-agents.sh ]; then \
		bash acp/acptest/install-agents.sh .tools; \
	else \
		echo "tools: acp/acptest/install-agents.sh does not exist yet: no agents to install"; \
	fi

## ---- build --------------------------------------------------------------
#
# Every target that builds a binary depends on frontend first, so no binary
# is ever built around an empty frontend/dist (it would serve "this build
# has no web UI").

# Guarantees: frontend/dist holds a build of the current sources
# (and dist/.gitkeep, copied from frontend/public/).
frontend: frontend/dist/index.html ## build the frontend into frontend/dist
frontend/dist/index.html: $(NODE_STAMP) $(FRONTEND_SOURCES)
	cd frontend && $(NPM) run build

# Guarantees: build/bin/switchboard (the window, with the frontend embedded)
# and build/bin/switchboard-tray, both of the current sources.
build: deps-system frontend ## build/bin/switchboard and build/bin/switchboard-tray
	$(GO) build -tags $(DESKTOP_TAGS) -ldflags "$(LDFLAGS)" -o build/bin/switchboard .
	$(GO) build -tags $(TRAY_TAGS) -ldflags "$(LDFLAGS)" -o build/bin/switchboard-tray ./tray/cmd/switchboard-tray

run: build ## build, then start the desktop app (ARGS="--data-dir /tmp/sb" to pass flags)
	./build/bin/switchboard $(ARGS)

# Guarantees: build/bin/switchboard-headless, with no cgo and no GUI library,
# the built frontend embedded (the web UI it serves).
headless: frontend ## build/bin/switchboard-headless (serve, acp, version; no cgo)
	CGO_ENABLED=0 $(GO) build -tags headless -ldflags "$(LDFLAGS)" -o build/bin/switchboard-headless .

# Guarantees: build/bin/switchboard-headless-linux-{amd64,arm64}, static
# (no cgo), stamped like the rest: the builds the app installs on hosts
# (`uname -sm` picks one; hub/hosts). The package and the tarball ship both.
HOST_ARCHES := amd64 arm64
host-builds: frontend ## build/bin/switchboard-headless-linux-{amd64,arm64} for hosts
	for arch in $(HOST_ARCHES); do \
		CGO_ENABLED=0 GOOS=linux GOARCH=$$arch $(GO) build -tags headless -ldflags "$(LDFLAGS)" \
			-o build/bin/switchboard-headless-linux-$$arch . || exit 1; \
	done

serve: headless ## build the headless binary and run `switchboard serve` (ARGS=... to pass flags)
	./build/bin/switchboard-headless serve $(ARGS)

# Guarantees: build/dist/switchboard_$(VERSION)_amd64.deb (the window as
# /usr/bin/switchboard, the tray, the .desktop entry and the icons;
# Depends: from dpkg-shlibdeps) and build/dist/switchboard_$(VERSION)_linux_amd64.tar.gz
# (the same plus switchboard-headless), all three binaries stamped with
# $(VERSION) (build/linux/package.sh).
package: deps-package build headless host-builds ## the .deb and .tar.gz into build/dist
	VERSION='$(VERSION)' bash build/linux/package.sh

# Guarantees: the .deb installs with apt-get, runs from /usr/bin, opens its
# window under Xvfb from the .desktop entry's Exec line, and removes cleanly
# leaving the user's data and config byte for byte as they were
# (.ci/package-test). Installs and removes a system package (as root or
# through sudo): not part of make test; .ci/run runs it after make test.
package-test: package deps-smoke ## install the .deb, smoke-test it, remove it
	VERSION='$(VERSION)' bash .ci/package-test

# Replaces acp/schema/v1 with the schema files of @agentclientprotocol/sdk
# (ACP_SDK_VERSION, default the newest) and records the version in
# acp/schema.SDKVersion; docs/ACP.md says what to check after.
ACP_SDK_VERSION ?= $(shell npm view @agentclientprotocol/sdk version)
acp-schema: ## update the official ACP schema files in acp/schema/v1
	@tmp=$$(mktemp -d) && cd $$tmp && npm pack --silent @agentclientprotocol/sdk@$(ACP_SDK_VERSION) >/dev/null && \
	  tar xzf agentclientprotocol-sdk-$(ACP_SDK_VERSION).tgz && \
	  cp package/schema/v1/schema.json package/schema/v1/schema.unstable.json $(CURDIR)/acp/schema/v1/ && \
	  rm -rf $$tmp
	@sed -i 's/^const SDKVersion = ".*"/const SDKVersion = "$(ACP_SDK_VERSION)"/' acp/schema/schema.go
	@sed -i 's/version \*\*[0-9.]*\*\*/version **$(ACP_SDK_VERSION)**/' docs/ACP.md
	@echo "acp/schema: @agentclientprotocol/sdk $(ACP_SDK_VERSION); now run the tests of acp/schema and acp"

# Regenerates frontend/wailsjs from app's bound methods (commit the result).
bindings: deps-system frontend ## regenerate frontend/wailsjs with the Wails CLI
	@[ -x $(WAILS) ] || GOBIN=$(dir $(WAILS)) $(GO) install github.com/wailsapp/wails/v2/cmd/wails@$(WAILS_VERSION)
	$(WAILS) generate module -tags webkit2_41

## ---- checks -------------------------------------------------------------

# Guarantees: vet (with and without the GUI tags), staticcheck and gofmt
# pass, and the Windows and macOS builds compile and vet (cross-check).
check: vet cross-check staticcheck fmt-check ## go vet, cross-compile, staticcheck, gofmt

vet: deps-system
	$(GO) vet ./...
	$(GO) vet -tags $(DESKTOP_TAGS) ./...
	$(GO) vet -tags headless ./app/... .

# Guarantees: Windows (amd64) vets with and without the GUI tags and builds
# the window (desktop,production: Wails on WebView2, no cgo) and the tray
# (getlantern/systray's Win32 calls, no cgo) as .exe files into build/cross;
# macOS (arm64 and amd64) vets every package that builds without cgo (all
# but the window and the tray, whose Cocoa parts need cgo: built on a Mac,
# docs/building.md). None of it runs here.
cross-check: frontend
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) vet ./...
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) vet -tags desktop,production ./...
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) vet -tags headless ./app/... .
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) build -tags desktop,production \
		-ldflags "$(LDFLAGS) -H windowsgui" -o build/cross/windows-amd64/switchboard.exe .
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) build -tags desktop \
		-ldflags "$(LDFLAGS) -H windowsgui" -o build/cross/windows-amd64/switchboard-tray.exe ./tray/cmd/switchboard-tray
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) build -tags headless \
		-ldflags "$(LDFLAGS)" -o build/cross/windows-amd64/switchboard-headless.exe .
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) vet ./...
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) vet -tags headless ./app/... .
	GOOS=darwin GOARCH=amd64 CGO_ENABLED=0 $(GO) vet ./...
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) build -tags headless \
		-ldflags "$(LDFLAGS)" -o build/cross/darwin-arm64/switchboard-headless .

staticcheck: deps-system deps-go
	$(STATICCHECK) ./...
	$(STATICCHECK) -tags $(DESKTOP_TAGS) ./...
	$(STATICCHECK) -tags headless ./app/... .

fmt-check:
	@out=$$(gofmt -l $$(find . -name '*.go' -not -path './.tools/*' -not -path '*/node_modules/*')); \
	if [ -n "$$out" ]; then echo "gofmt: these files need gofmt -w:"; echo "$$out"; exit 1; fi

# Guarantees: everything CI checks passes: check, the Go tests under the race
# detector, the frontend's type check and tests, and the desktop smoke test.
test: tools deps check go-test frontend-test smoke ## every check CI runs

# app/systest runs the real binary, real agents and OpenSSH under the race
# detector: 544 s in one run on a 2-vCPU machine, past 600 s in another,
# so go test's default 10-minute limit per package fails it on a slow
# day; 30 minutes still stops a hung test well inside CI's 90.
go-test: deps-system deps-smoke deps-hosts frontend
	$(GO) test -race -timeout 30m ./...

# Guarantees: svelte-check and the vitest suite pass, and the browser UI
# works end to end: a real headless hub with the acp-go-sdk example agent,
# driven in Debian's Chromium (frontend/e2e/run.mjs; screenshots in
# build/screenshots/), the security attacks (e2e/security.mjs) and the
# approvals flows — rules, remembered decisions, the batch inbox,
# escalation, the history — with the fake agent (e2e/approvals.mjs),
# the approval card leading with what runs, not the agent's title
# (e2e/trustcard.mjs), and the key screens matching their committed
# screenshots with no axe violation (e2e/screens.mjs; make
# screenshots-update regenerates them).
frontend-test: deps-frontend deps-browser
	cd frontend && $(NPM) run check && $(NPM) test && $(NPM) run e2e

# Guarantees: frontend/e2e/baselines/*.png are screenshots of the current
# UI: the key screens (empty, streaming, approval card, inbox, settings,
# diff) in light and dark at 700, 1440 and 1920 px, taken by
# frontend/e2e/screens.mjs, which make test (frontend-test) compares them
# with. Run it after a change to how the UI looks, look at the new
# pictures (git diff shows which changed), and commit them.
screenshots-update: deps-frontend deps-browser frontend ## regenerate the screenshot baselines (frontend/e2e/baselines)
	cd frontend && UPDATE_BASELINES=1 node e2e/screens.mjs

# Guarantees: Debian's Chromium for the browser end-to-end test, and the
# fonts the screenshot baselines were drawn with (e2e/screens.mjs: DejaVu,
# with its oblique and condensed faces, so no face is synthesised on one
# machine and not on another).
deps-browser:
	$(call apt-install,chromium fonts-dejavu-core fonts-dejavu-extra)

# Guarantees: the built window opens, titled "Switchboard", under Xvfb and
# paints (build/screenshots/window.png is not one colour); notifications
# with Approve/Deny work end to end against a fake notification server; a
# second launch focuses the first; `switchboard open THREAD` shows the
# thread in the running window; Ctrl/Alt+1…9, Alt+↑/↓, Escape and Ctrl+.
# work in the window; the Thread menu exports through the native Save
# dialog and opens the thread in the browser signed in (a fake xdg-open);
# Ctrl+Q quits cleanly; both binaries exit 0 on SIGTERM (.ci/desktop-smoke).
smoke: build deps-smoke ## start both binaries under Xvfb and stop them
	bash .ci/desktop-smoke

# Prints every figure docs/PERFORMANCE.md reports: micro benchmarks of
# acp, hub and store, then the system benchmarks of app (the hub as users
# run it) on a 1M-event database, then the UI's store in Node, the UI in
# headless Chromium against a real hub (frontend/e2e/bench.mjs: streaming,
# a 10k-event thread opened and scrolled) and the size of its bundle
# (frontend/e2e/bundle.mjs), the hub from outside, the desktop's memory,
# the window's first paint after launch, and the first ten minutes'
# "install end → first streamed answer" (frontend/e2e/firstten.mjs --bench).
bench: deps-system deps-frontend deps-browser frontend ## benchmarks (results and targets: docs/PERFORMANCE.md)
	$(GO) test -run '^$$' -bench . -benchmem ./acp/... ./hub/... ./store/...
	SWITCHBOARD_BENCH_LARGE=1 $(GO) test -run '^$$' -bench . -benchtime 1x -timeout 30m ./app/
	cd frontend && npx vitest bench --run
	cd frontend && npx vite build && node e2e/bench.mjs && node e2e/bundle.mjs
	cd frontend && node e2e/firstten.mjs --bench
	$(MAKE) bench-outside
	$(MAKE) bench-desktop
	$(MAKE) bench-firstpaint

# The checkpoint's figures at 100,000 files (issue 31): the checkpoint's
# own time and the prompt's time to the agent with and without it. Not in
# bench: making the repository takes minutes. (At 10,000 files they run
# in bench: BenchmarkCheckpoint10k, BenchmarkPromptToAgent.)
bench-large-repo: frontend ## checkpoint and prompt figures on a 100k-file repository (docs/PERFORMANCE.md)
	SWITCHBOARD_BENCH_LARGE=1 $(GO) test -run '^$$' -bench 'BenchmarkCheckpoint100k' -benchtime 5x -timeout 30m ./hub/gitwork/
	SWITCHBOARD_BENCH_LARGE=1 $(GO) test -run '^$$' -bench 'BenchmarkPromptToAgent/files=100000' -benchtime 20x -timeout 30m ./hub/engine/

# Prints the hub's figures as a user's client sees them (app/hubbench): the
# headless binary, agents in another process, this client reading one SSE
# stream per turn and the global stream; latency, CPU per chunk, RSS and
# peak RSS, the load average; the median of 5 runs of 30 s (about 8 min).
# BENCH_OUTSIDE_FLAGS passes flags, e.g. -redaction=false -search=false,
# -agents process, -bin <another build> (go run ./app/hubbench -h lists them).
bench-outside: headless ## the hub measured from outside (BENCH_OUTSIDE_FLAGS=... to pass flags)
	$(GO) run ./app/hubbench -bin build/bin/switchboard-headless -label "$(VERSION)" $(BENCH_OUTSIDE_FLAGS)

# Prints issue 30's figures for hosts (app/systest BenchmarkHost*, docs/
# PERFORMANCE.md "Hosts"): chunk latency through the link, catch-up after a
# 60 s cut (two kinds of cut), five idle hosts' PSS and CPU, the first
# connect with its install; each twice. Real OpenSSH into network
# namespaces: as root, with deps-hosts; SWITCHBOARD_HOSTS_E2E=require fails
# instead of skipping. About 17 minutes. BENCH_HOSTS passes a -bench
# pattern (one figure).
BENCH_HOSTS ?= BenchmarkHost
bench-hosts: deps-hosts frontend ## issue 30's host figures: link latency, catch-up, idle hosts, first connect
	SWITCHBOARD_HOSTS_E2E=require $(GO) test -run '^$$' -bench '$(BENCH_HOSTS)' -benchtime 1x -count 2 -timeout 60m ./app/systest/

# Prints the desktop's own footprint: the PSS of build/bin/switchboard, its
# WebKit processes and the tray it starts, idle 20 s after the window
# painted, under Xvfb (.ci/bench-desktop: BENCH_RUNS, BENCH_IDLE,
# BENCH_DETAIL, BENCH_ENV).
bench-desktop: build deps-smoke ## idle memory (PSS) of the window, WebKit and the tray
	bash .ci/bench-desktop

# Prints the window's first paint: build/bin/switchboard started under
# Xvfb BENCH_RUNS times (default 5) on a fresh data dir, the time from the
# exec to its window and to the first capture of that window in which the
# page has drawn (.ci/bench-firstpaint), and the median.
bench-firstpaint: build deps-smoke ## time from launch to the window's first paint
	bash .ci/bench-firstpaint

clean: ## remove build output (keeps .tools/ and node_modules)
	rm -rf build/bin build/dist build/cross
	find frontend/dist -mindepth 1 ! -name .gitkeep -delete
