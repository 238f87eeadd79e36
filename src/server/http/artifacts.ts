import type { FastifyInstance } from 'fastify';
import { PATHS } from '../../api/paths.js';
import { invoke } from '../../core/invoke.js';
import type { Ctx } from '../../core/operation.js';
import { operations } from '../../core/operations.js';
import { MAX_ARTIFACT_BYTES } from '../../core/ops/artifacts.js';

/** Artifacts travel as raw bytes; the claim_id rides in the Coord-Claim-Id header. */
export function registerArtifactRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_ARTIFACT_BYTES }, (_req, body, done) =>
      done(null, body),
    );
    scope.put(PATHS.artifact, { bodyLimit: MAX_ARTIFACT_BYTES }, async (req, reply) => {
      const p = req.params as { id: string; artifact_id: string };
      const header = (name: string) => {
        const v = req.headers[name];
        return Array.isArray(v) ? v[0] : v;
      };
      const out = await invoke(operations.putArtifact, ctx, {
        task_id: p.id,
        artifact_id: p.artifact_id,
        claim_id: header('coord-claim-id'),
        name: header('coord-name'),
        content_type: header('content-type'),
        bytes: req.body instanceof Buffer ? new Uint8Array(req.body) : new Uint8Array(),
      });
      return reply.code(out.created ? 201 : 200).send(out);
    });
  });
  app.get(PATHS.artifact, async (req, reply) => {
    const p = req.params as { id: string; artifact_id: string };
    const { artifact, bytes } = await invoke(operations.getArtifact, ctx, {
      task_id: p.id,
      artifact_id: p.artifact_id,
    });
    return reply
      .type(artifact.content_type)
      .header('Coord-Name', encodeURIComponent(artifact.name))
      .header('ETag', `"${artifact.sha256}"`)
      .send(Buffer.from(bytes));
  });
}
