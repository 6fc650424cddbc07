package protocol

import "fmt"

// MaxDeviceIDBytes bounds a device id.
const MaxDeviceIDBytes = 128

// ValidDeviceID checks a device id, as sent in the connect data or in the HTTP
// X-Device-Id header: 1-128 characters of A-Z a-z 0-9 . _ : -
func ValidDeviceID(id string) error {
	if id == "" || len(id) > MaxDeviceIDBytes {
		return fmt.Errorf("device_id must be 1-%d characters", MaxDeviceIDBytes)
	}
	for _, c := range []byte(id) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-'
		if !ok {
			return fmt.Errorf("device_id has the character %q; allowed: A-Z a-z 0-9 . _ : -", c)
		}
	}
	return nil
}
