// An MCP server whose tools run as tasks (the tasks extension), for the tests
// of task calls: `node task-server.mjs stdio`, or `node task-server.mjs http`
// (Streamable HTTP on a free loopback port, printed as "listening <port>").
// Its tasks outlive MCP sessions (one store for all), as those of a server
// that binds tasks to the caller's credentials do: a client that connects
// again, after a restart, finds them.
//
//   count: counts to `steps`, one step every `ms` milliseconds, each step a
//     status message and a progress notification for the task; honours a
//     cancel.
//   ask: asks a question for its task (status input_required) and answers
//     with what the person said.
//   GET /tasks (http only): every task's id and status, for the tests.

import { setMaxListeners } from "node:events";
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { InMemoryTaskStore, InMemoryTaskMessageQueue } from "@modelcontextprotocol/sdk/experimental/tasks";
import { ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js";

// Each waiting tasks/result listens on its request's abort signal.
setMaxListeners(256);

const store = new InMemoryTaskStore();
const queue = new InMemoryTaskMessageQueue();
// One store for every session: the session a call is made in is not passed on.
const shared = new Proxy(store, {
  get(target, prop) {
    const v = target[prop];
    if (typeof v !== "function") return v;
    return (...args) => {
      if (prop === "createTask") return v.call(target, args[0], args[1], args[2]);
      if (prop === "storeTaskResult") return v.call(target, args[0], args[1], args[2]);
      if (prop === "updateTaskStatus") return v.call(target, args[0], args[1], args[2]);
      if (prop === "listTasks") return v.call(target, args[0]);
      return v.call(target, args[0]);
    };
  },
});
const all = new Map(); // task id → status, for GET /tasks

function newServer() {
  const server = new McpServer(
    { name: "task-server", version: "1.0.0" },
    {
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore: shared,
      taskMessageQueue: queue,
    },
  );
  const status = async (id, s, msg) => {
    all.set(id, s);
    await shared.updateTaskStatus(id, s, msg);
  };
  const finish = async (id, text) => {
    all.set(id, "completed");
    await shared.storeTaskResult(id, "completed", { content: [{ type: "text", text }] });
  };
  const cancelled = async (id) => (await shared.getTask(id))?.status === "cancelled";

  server.experimental.tasks.registerToolTask(
    "count",
    {
      description: "Counts to steps, one step every ms milliseconds.",
      inputSchema: { steps: z.number().int().min(1).max(1000), ms: z.number().int().min(1).max(60000) },
      execution: { taskSupport: "required" },
    },
    {
      createTask: async ({ steps, ms }, extra) => {
        const task = await extra.taskStore.createTask({ ttl: 600000, pollInterval: 200 });
        all.set(task.taskId, "working");
        (async () => {
          for (let i = 1; i <= steps; i++) {
            await new Promise((r) => setTimeout(r, ms));
            if (await cancelled(task.taskId)) {
              all.set(task.taskId, "cancelled");
              return;
            }
            if (i < steps) await status(task.taskId, "working", `step ${i} of ${steps}`);
            const token = extra._meta?.progressToken;
            if (token !== undefined) {
              await extra
                .sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: i, total: steps } }, { relatedTask: { taskId: task.taskId } })
                .catch(() => undefined);
            }
          }
          await finish(task.taskId, `counted to ${steps}`);
        })().catch((e) => console.error(e));
        return { task };
      },
      getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
      getTaskResult: async (_args, extra) => extra.taskStore.getTaskResult(extra.taskId),
    },
  );

  server.experimental.tasks.registerToolTask(
    "ask",
    {
      description: "Asks the person a question for its task and says what they answered.",
      inputSchema: { question: z.string().max(200) },
      execution: { taskSupport: "required" },
    },
    {
      createTask: async ({ question }, extra) => {
        const task = await extra.taskStore.createTask({ ttl: 600000, pollInterval: 200 });
        all.set(task.taskId, "working");
        (async () => {
          await status(task.taskId, "input_required", "waiting for an answer");
          const answer = await extra.sendRequest(
            {
              method: "elicitation/create",
              params: {
                message: question,
                requestedSchema: { type: "object", properties: { answer: { type: "string", title: "Answer" } }, required: ["answer"] },
              },
            },
            ElicitResultSchema,
            { relatedTask: { taskId: task.taskId } },
          );
          await status(task.taskId, "working", "read the answer");
          await finish(task.taskId, answer.action === "accept" ? `the answer: ${answer.content.answer}` : `no answer (${answer.action})`);
        })().catch((e) => console.error(e));
        return { task };
      },
      getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
      getTaskResult: async (_args, extra) => extra.taskStore.getTaskResult(extra.taskId),
    },
  );
  return server;
}

if (process.argv[2] === "http") {
  const transports = new Map();
  const http = createServer(async (req, res) => {
    if (req.method === "GET" && req.url === "/tasks") {
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify(Object.fromEntries(all)));
      return;
    }
    const sid = req.headers["mcp-session-id"];
    let transport = sid ? transports.get(sid) : undefined;
    if (!transport) {
      if (sid) {
        res.writeHead(404).end();
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      await newServer().connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  http.listen(0, "127.0.0.1", () => console.log(`listening ${http.address().port}`));
} else {
  await newServer().connect(new StdioServerTransport());
}
