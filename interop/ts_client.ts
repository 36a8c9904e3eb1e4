// Drives the `deploy_service` example server with the official TypeScript SDK client
// (`@modelcontextprotocol/client@2.4.0`) over Streamable HTTP, pinned to 2026-07-28: the SDK
// meets `input_required` results and fulfils them through the handlers registered with
// `setRequestHandler`, then retries the call itself.
//
// Usage: node ts_client.ts URL   (Node >= 22.18 runs the file directly: types are erasable)
// Prints one `PASS name` / `FAIL name: why` line per check and a final `N passed, N failed`
// line; exits non-zero when any check failed.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const SERVICE = 'checkout-api';
const SINCE = '2026-11-01T00:00:00Z';
// The canned completion the sampling handler returns; the tool must hand it back verbatim.
const SUMMARY = '- db failover at 02:10\n- cache eviction storm\n- certificate renewed late';

let passed = 0;
let failed = 0;

function check(name: string, ok: boolean, why: string): void {
    if (ok) {
        passed += 1;
        console.log(`PASS typescript/http-2026-07-28/${name}`);
    } else {
        failed += 1;
        console.log(`FAIL typescript/http-2026-07-28/${name}: ${why}`);
    }
}

type Content = { type: string; text?: string };

function textOf(result: { content?: unknown }): string {
    const blocks = (Array.isArray(result.content) ? result.content : []) as Content[];
    return blocks
        .filter(block => block.type === 'text')
        .map(block => block.text ?? '')
        .join('\n');
}

async function run(url: string): Promise<void> {
    const elicitations: Array<{ message: string; requestedSchema?: { properties?: Record<string, { enum?: string[] }> } }> = [];
    const samplings: Array<{ maxTokens: number; messages: Array<{ content: Content | Content[] }> }> = [];
    let elicitAction: 'accept' | 'decline' = 'accept';

    const client = new Client(
        { name: 'mrtr-interop-typescript', version: '1.0.0' },
        {
            capabilities: { elicitation: { form: {} }, sampling: {} },
            versionNegotiation: { mode: { pin: '2026-07-28' } }
        }
    );
    client.setRequestHandler('elicitation/create', async request => {
        const params = request.params as (typeof elicitations)[number];
        elicitations.push(params);
        if (elicitAction !== 'accept') {
            return { action: elicitAction };
        }
        return { action: 'accept', content: { environment: 'staging' } };
    });
    client.setRequestHandler('sampling/createMessage', async request => {
        samplings.push(request.params as (typeof samplings)[number]);
        return {
            role: 'assistant',
            content: { type: 'text', text: SUMMARY },
            model: 'interop-scripted-model',
            stopReason: 'endTurn'
        };
    });

    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
        const version = client.getNegotiatedProtocolVersion();
        check('negotiated-version', version === '2026-07-28' && client.getProtocolEra() === 'modern', `got ${version} (${client.getProtocolEra()})`);

        const names = new Set((await client.listTools()).tools.map(tool => tool.name));
        check(
            'lists-ported-tools',
            names.has('deploy_service') && names.has('summarize_incidents'),
            `tools/list gave ${[...names].sort().join(', ')}`
        );

        const deployed = await client.callTool({ name: 'deploy_service', arguments: { service: SERVICE } });
        const deployedText = textOf(deployed);
        check('deploy-asked-once', elicitations.length === 1, `elicitation handler ran ${elicitations.length} times`);
        const asked = elicitations[0];
        const choices = asked?.requestedSchema?.properties?.environment?.enum ?? [];
        check(
            'deploy-form-offers-staging-and-production',
            asked !== undefined && asked.message.includes(SERVICE) && [...choices].sort().join(',') === 'production,staging',
            `message ${JSON.stringify(asked?.message)}, environment enum ${JSON.stringify(choices)}`
        );
        check(
            'deploy-result-names-the-answer',
            !deployed.isError && deployedText.includes(SERVICE) && deployedText.includes('staging'),
            `isError=${deployed.isError}, text ${JSON.stringify(deployedText)}`
        );

        elicitAction = 'decline';
        const declined = await client.callTool({ name: 'deploy_service', arguments: { service: SERVICE } });
        const declinedText = textOf(declined);
        check(
            'declined-deploy-deploys-nothing',
            elicitations.length === 2 && declinedText.toLowerCase().includes('declin') && !declinedText.includes('staging'),
            `${elicitations.length} elicitations, text ${JSON.stringify(declinedText)}`
        );

        const summary = await client.callTool({ name: 'summarize_incidents', arguments: { since: SINCE } });
        const summaryText = textOf(summary);
        check('summary-sampled-once', samplings.length === 1, `sampling handler ran ${samplings.length} times`);
        const sampled = samplings[0];
        const prompt = (sampled?.messages ?? [])
            .flatMap(message => (Array.isArray(message.content) ? message.content : [message.content]))
            .map(block => block.text ?? '')
            .join('');
        check(
            'summary-request-is-well-formed',
            sampled !== undefined && sampled.maxTokens > 0 && prompt.length > 0,
            `maxTokens ${sampled?.maxTokens}, prompt ${JSON.stringify(prompt)}`
        );
        check(
            'summary-result-is-the-sampled-text',
            !summary.isError && summaryText.includes(SUMMARY),
            `isError=${summary.isError}, text ${JSON.stringify(summaryText)}`
        );

        await checkManualRound(client);
    } finally {
        await client.close();
    }
}

type RawRound = { resultType?: string; inputRequests?: Record<string, { method?: string }>; requestState?: string };

/** One round by hand: the raw `input_required` result as the SDK hands it back. */
async function checkManualRound(client: Client): Promise<void> {
    const call = { name: 'deploy_service', arguments: { service: SERVICE } };
    const first = (await client.callTool(call, { allowInputRequired: true })) as unknown as RawRound;
    check('manual-round-is-input-required', first.resultType === 'input_required', `got resultType ${first.resultType}`);
    check(
        'manual-round-asks-target-env',
        first.inputRequests?.target_env?.method === 'elicitation/create' && typeof first.requestState === 'string',
        `inputRequests ${JSON.stringify(first.inputRequests)}, requestState ${first.requestState ? 'set' : 'missing'}`
    );
    // Retry with the state but no answer: the server must ask again, not fail or finish.
    const again = (await client.callTool(
        { ...call, requestState: first.requestState },
        { allowInputRequired: true }
    )) as unknown as RawRound;
    check(
        'unanswered-retry-asks-again',
        again.resultType === 'input_required' && again.inputRequests?.target_env !== undefined,
        `got ${JSON.stringify(again).slice(0, 200)}`
    );
    // A forged state must be refused with -32602, whatever else the request carries.
    try {
        await client.callTool(
            {
                ...call,
                inputResponses: { target_env: { action: 'accept', content: { environment: 'production' } } },
                requestState: `${first.requestState}-TAMPERED`
            },
            { allowInputRequired: true }
        );
        check('tampered-state-is-rejected', false, 'the server accepted a tampered requestState');
    } catch (error) {
        const code = (error as { code?: unknown }).code;
        check('tampered-state-is-rejected', code === -32602, `got code ${String(code)}: ${String(error)}`);
    }
}

const url = process.argv[2];
if (!url) {
    console.error('usage: node ts_client.ts URL');
    process.exit(2);
}
try {
    await run(url);
} catch (error) {
    // A crash is a failed check, never a silent pass.
    check('leg-completes', false, error instanceof Error ? `${error.name}: ${error.message}` : String(error));
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
