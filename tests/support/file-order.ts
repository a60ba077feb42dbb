import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order vitest starts files in. Its own sorts project after project (deployment, domain,
 * integration, unit), each largest or slowest first. The integration files wait a good deal
 * (services starting, timeouts running out, a minute's window turning) and the unit files hardly
 * at all, so that order made a trough: a sampler of /proc/stat saw both cores 12–50 % busy for a
 * minute while the deployment test, the slow-clients timeouts and Playwright's autosave waits
 * all waited at once, and the unit files' CPU came at the end. Here the integration and unit files
 * take turns (each project's own order kept), after the deployment and domain files as before.
 */
export class TakingTurns extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const integration = sorted.filter((f) => f.project.name === 'integration');
    const unit = sorted.filter((f) => f.project.name === 'unit');
    const turns: TestSpecification[] = [];
    for (let i = 0; i < Math.max(integration.length, unit.length); i++) {
      if (integration[i]) turns.push(integration[i]!);
      if (unit[i]) turns.push(unit[i]!);
    }
    return [...sorted.filter((f) => f.project.name !== 'integration' && f.project.name !== 'unit'), ...turns];
  }
}
