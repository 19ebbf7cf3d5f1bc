module github.com/afor-go/afor

go 1.26.0

require (
	go.uber.org/goleak v1.3.0
	golang.org/x/sync v0.25.0
)
