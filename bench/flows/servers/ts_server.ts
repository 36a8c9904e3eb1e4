// The flow benchmark's TypeScript SDK reference server (@modelcontextprotocol/server 2.4.0 on
// Node 22): `deploy_service`, `summarize_incidents` and `staged_rollout`, written as the SDK's
// input_required guide writes them: each handler runs on every round, reads this round's answers
// with `acceptedContent` / `inputResponse`, and returns `inputRequired(..)` for what is still
// missing. Rounds that must run in sequence carry their state in `requestState`, minted and
// verified by the SDK's `createRequestStateCodec` (HMAC-SHA256, bound to the tool and arguments).
// Served per request by `createMcpHandler` through `toNodeHandler` on `node:http`.
//
// Run: node ts_server.ts PORT  (Streamable HTTP at http://127.0.0.1:PORT/mcp)

import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import {
    McpServer,
    acceptedContent,
    createMcpHandler,
    createRequestStateCodec,
    inputRequired,
    inputResponse,
} from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod';

const WAVES = ['canary', '25%', '50%', '100%'];

// The pretend back end, as `examples/ops.rs`: a plan digest and a log line per effect.
const log: string[] = [];
function fnv(text: string): bigint {
    let hash = 0xcbf29ce484222325n;
    for (const byte of Buffer.from(text)) {
        hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
    }
    return hash;
}
function buildDeployPlan(service: string): { id: string; digest: string } {
    const digest = fnv(service).toString(16).padStart(16, '0');
    const plan = { id: `plan-${service}-${digest.slice(0, 6)}`, digest };
    log.push(`build_plan ${service} ${plan.id}`);
    return plan;
}
function fetchIncidents(since: string) {
    log.push(`fetch_incidents ${since}`);
    return [
        { id: 'INC-101', service: 'checkout-api', severity: 'sev2', title: 'Elevated 5xx on /pay' },
        { id: 'INC-102', service: 'search', severity: 'sev3', title: 'Slow autocomplete in eu-west' },
        { id: 'INC-103', service: 'checkout-api', severity: 'sev1', title: 'Card authorisations failing' },
    ];
}
function renderDigest(incidents: ReturnType<typeof fetchIncidents>): string {
    return [...incidents]
        .sort((a, b) => a.severity.localeCompare(b.severity) || a.id.localeCompare(b.id))
        .map((i) => `${i.id} [${i.severity}] ${i.service}: ${i.title}`)
        .join('\n');
}

type State =
    | { tool: 'deploy_service'; plan: { id: string } }
    | { tool: 'summarize_incidents'; digestKey: string; digest: string }
    | { tool: 'staged_rollout'; plan: { id: string }; done: string[] };

const codec = createRequestStateCodec<State>({
    key: randomBytes(32),
    ttlSeconds: 300,
    // The tool and its arguments, so a token cannot be replayed against another call.
    bind: (ctx: any) => `${ctx.mcpReq.method}\0${JSON.stringify(ctx.mcpReq.params ?? {})}`,
});

const targetSchema = z.object({
    environment: z.enum(['staging', 'production']).meta({ description: 'Deployment target' }),
});
const proceedSchema = z.object({ proceed: z.boolean().meta({ description: 'Roll out to this wave' }) });

function text(message: string) {
    return { content: [{ type: 'text' as const, text: message }] };
}

function buildServer(): McpServer {
    const server = new McpServer(
        { name: 'typescript-reference', version: '1.0.0' },
        { requestState: { verify: codec.verify } },
    );

    server.registerTool(
        'deploy_service',
        { description: 'Deploy a service to staging or production', inputSchema: z.object({ service: z.string() }) },
        async ({ service }, ctx: any) => {
            const state = ctx.mcpReq.requestState() as State | undefined;
            const plan = state?.tool === 'deploy_service' ? state.plan : buildDeployPlan(service);
            const view = inputResponse(ctx.mcpReq.inputResponses, 'target_env');
            if (view.kind === 'elicit' && view.action === 'decline') return text('Deployment declined by user.');
            if (view.kind === 'elicit' && view.action === 'cancel') return text('Deployment cancelled by user.');
            const target = acceptedContent(ctx.mcpReq.inputResponses, 'target_env', targetSchema);
            if (target === undefined) {
                return inputRequired({
                    inputRequests: {
                        target_env: inputRequired.elicit({
                            message: `Deploy ${service} — which environment?`,
                            requestedSchema: targetSchema,
                        }),
                    },
                    requestState: await codec.mint({ tool: 'deploy_service', plan: { id: plan.id } }, ctx),
                });
            }
            log.push(`deploy ${service} ${target.environment} ${plan.id}`);
            const url = `https://${target.environment}.example.invalid/${service}`;
            return text(`Deployed ${service} to ${target.environment}: ${url}`);
        },
    );

    server.registerTool(
        'summarize_incidents',
        { description: 'Summarise recent incidents in three bullets', inputSchema: z.object({ since: z.string() }) },
        async ({ since }, ctx: any) => {
            let state = ctx.mcpReq.requestState() as State | undefined;
            if (state?.tool !== 'summarize_incidents') {
                const digest = renderDigest(fetchIncidents(since));
                const digestKey = `digest-${fnv(digest).toString(16).padStart(16, '0')}`;
                state = { tool: 'summarize_incidents', digestKey, digest };
            }
            const view = inputResponse(ctx.mcpReq.inputResponses, 'summary');
            if (view.kind === 'sampling') {
                const content = (view as any).result?.content ?? (view as any).content;
                const summary = content?.type === 'text' ? content.text : undefined;
                if (summary === undefined) return text('Unusable sampling response. Nothing was recorded.');
                log.push(`record_summary ${state.digestKey} ${summary.length} chars`);
                return text(summary);
            }
            return inputRequired({
                inputRequests: {
                    summary: inputRequired.createMessage({
                        messages: [{ role: 'user', content: { type: 'text', text: state.digest } }],
                        maxTokens: 400,
                        systemPrompt: 'Summarise these incidents in three bullets. No preamble.',
                    }),
                },
                requestState: await codec.mint(state, ctx),
            });
        },
    );

    server.registerTool(
        'staged_rollout',
        { description: 'Roll a service out wave by wave, confirming each wave', inputSchema: z.object({ service: z.string() }) },
        async ({ service }, ctx: any) => {
            const state = ctx.mcpReq.requestState() as State | undefined;
            const plan = state?.tool === 'staged_rollout' ? state.plan : buildDeployPlan(service);
            const done = state?.tool === 'staged_rollout' ? [...state.done] : [];
            if (state?.tool === 'staged_rollout') {
                const view = inputResponse(ctx.mcpReq.inputResponses, 'confirm_wave');
                const answer = acceptedContent(ctx.mcpReq.inputResponses, 'confirm_wave', proceedSchema);
                const wave = WAVES[done.length];
                if (view.kind === 'elicit' && answer?.proceed !== true) {
                    return text(`Rollout of ${service} stopped before ${wave} after ${done.length} waves.`);
                }
                if (answer?.proceed === true) {
                    log.push(`wave ${service} ${wave} ${plan.id}`);
                    done.push(wave);
                }
            }
            if (done.length === WAVES.length) {
                return text(`Rolled ${service} out in ${done.length} waves: ${done.join(', ')}`);
            }
            return inputRequired({
                inputRequests: {
                    confirm_wave: inputRequired.elicit({
                        message: `Roll ${service} out to ${WAVES[done.length]}?`,
                        requestedSchema: proceedSchema,
                    }),
                },
                requestState: await codec.mint({ tool: 'staged_rollout', plan: { id: plan.id }, done }, ctx),
            });
        },
    );
    return server;
}

const handler = createMcpHandler(() => buildServer());
const port = Number(process.argv[2] ?? 3000);
// noDelay: answers are small writes on kept-alive connections (Nagle would hold them back).
createServer({ noDelay: true, keepAliveTimeout: 60_000 }, toNodeHandler(handler)).listen(port, '127.0.0.1');
