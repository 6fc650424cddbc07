package client

// SetAfterOutcome installs a hook that runs after an outcome is written to the
// journal and before it is submitted (crash tests stop the process there).
func SetAfterOutcome(fn func(rtcID string)) { afterOutcome = fn }
