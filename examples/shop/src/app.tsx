// The shop page in two variants (?ui=element for the second):
// - headless: the shop's own chat panel and approval dialog, built from the hooks;
// - element: the SDK's complete chat UI, <AgentChat/>, with the same tools.
// Either way the shop's tools live in <ShopTools/>, under the agent's provider.

import { AgentChat, AgentProvider, useAgent } from "@rtc-agent/react";
import { Approvals } from "./approvals.js";
import { Assistant } from "./assistant.js";
import { Cart, Catalog } from "./catalog.js";
import { getToken, sandboxUrl, serverUrl, userId } from "./token.js";
import { ShopTools } from "./tools.js";

export function App({ variant }: { variant: "headless" | "element" }) {
  return (
    <main className={`shop ${variant}`}>
      <h1>Corner Shop</h1>
      <Catalog />
      <Cart />
      {variant === "element" ? <ElementAssistant /> : <HeadlessAssistant />}
    </main>
  );
}

function HeadlessAssistant() {
  const { agent, error } = useAgent({ serverUrl, userId, getToken, sandboxUrl });
  if (error) return <p role="alert">The assistant could not start: {error.message}</p>;
  return (
    <AgentProvider agent={agent}>
      <ShopTools />
      <Assistant />
      <Approvals />
    </AgentProvider>
  );
}

const chatOptions = { sandboxUrl };

function ElementAssistant() {
  return (
    <AgentChat serverUrl={serverUrl} userId={userId} getToken={getToken} options={chatOptions} title="Shop assistant" className="chat">
      <ShopTools />
    </AgentChat>
  );
}
