package realtime

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/centrifugal/centrifuge"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// DisconnectBadConnectData ends a connection whose connect data is not
// {"device_id": "<id>"} with a valid id. Its code is in Centrifuge's range of
// application codes after which clients do not reconnect (4500-4999): sending
// the same data again cannot succeed.
var DisconnectBadConnectData = centrifuge.Disconnect{Code: 4501,
	Reason: `bad connect data: want {"device_id": "<1-128 of A-Z a-z 0-9 . _ : ->"}`}

// maxConnectData bounds the connect data before it is parsed.
const maxConnectData = 1024

// connectData is what a client sends in its connect request.
type connectData struct {
	DeviceID string `json:"device_id"`
}

// parseConnectData checks the connect data: a JSON object with a valid device id.
func parseConnectData(data []byte) (connectData, error) {
	var cd connectData
	if len(data) > maxConnectData {
		return cd, fmt.Errorf("connect data larger than %d bytes", maxConnectData)
	}
	if len(data) == 0 {
		return cd, errors.New("no connect data")
	}
	if err := json.Unmarshal(data, &cd); err != nil {
		return cd, fmt.Errorf("connect data: %w", err)
	}
	return cd, protocol.ValidDeviceID(cd.DeviceID)
}
