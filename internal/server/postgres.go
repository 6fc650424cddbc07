package server

import (
	"context"
	"errors"

	"github.com/rtcagent/rtcagent/internal/store"
)

func openPostgres(context.Context, string) (store.Store, error) {
	return nil, errors.New("the PostgreSQL store is not built into this version")
}
