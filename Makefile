# RTC Agent. `make run` starts the embedded server with the demo page on
# http://localhost:8080; `make test` runs every test. Both set up what they need.

GO ?= go
WEB_STAMP := web/node_modules/.package-lock.json

.PHONY: run build web test test-go test-web lint fuzz bench clean

run: web
	$(GO) run ./cmd/rtcagent serve -dev

build: web
	$(GO) build -o bin/rtcagent ./cmd/rtcagent

$(WEB_STAMP): web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund

web: $(WEB_STAMP)
	cd web && npm run build

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	GOOS=windows $(GO) build -o /dev/null ./cmd/rtcagent # builds where SQLite has no unix VFS

test-go: web lint
	$(GO) test -race -count=1 -timeout 20m ./...

test-web: $(WEB_STAMP)
	cd web && npm test

test: test-go test-web

# Each fuzz target for FUZZTIME (seed corpora also run in every `go test`).
FUZZTIME ?= 30s
FUZZ_TARGETS := internal/api:FuzzCall internal/auth:FuzzVerify internal/tools:FuzzCheckCall internal/agent:FuzzResultText \
  internal/llm/openai:FuzzStreamBytes internal/llm/openai:FuzzStreamChunks \
  internal/llm/anthropic:FuzzStreamBytes internal/llm/anthropic:FuzzStreamEvents
fuzz:
	@for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; fn=$${t##*:}; \
	  echo "== $$pkg $$fn"; $(GO) test ./$$pkg -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) || exit 1; done

# The load tool (docs/benchmarks.md); BENCHFLAGS e.g. "-sessions 1,100 -duration 10s".
BENCHFLAGS ?=
bench:
	$(GO) run ./cmd/rtcagent bench $(BENCHFLAGS)

clean:
	rm -rf bin web/dist/*.js web/dist/*.d.ts web/dist/types web/dist/*.map web/dist/*.html web/dist/*.json web/dist/examples web/react/dist web/react/types
