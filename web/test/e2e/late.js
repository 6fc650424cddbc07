// Runs after the SDK module defined <rtc-agent> (and so after the element was
// connected): the options set here must still be the ones the agent starts with.
document.getElementById("agent").options = { deviceId: "late-device", workMode: "plan", minReconnectDelayMs: 100, maxReconnectDelayMs: 1000 };
