/**
 * Ring groups as an admin meets them, in Chromium against the real server: create a group with two
 * members (its schedule, calendar and forwarding list come with it), a number already taken is refused
 * next to the field, edit it, a second admin's concurrent save produces the conflict choice, and delete
 * removes the group and everything that belonged to it. An agent’s SDK cannot write any of it. On
 * /users the admin changes a person’s extension (a group cannot take one, nor a person a group’s number).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shutdownClients } from '../integration/sync/support';
import { launchChromium } from '../support/chromium';
import { startServer, type RunningServer } from '../support/server';
import { apiSignIn } from '../model/support/app';
import { updateGroup } from '../support/ring-groups';
import { adminApiFor, sdkClientFor, signedInPage, snapshotDist, type Person } from './support/live';

let server: RunningServer;
let browser: Browser;
let dist: ReturnType<typeof snapshotDist>;
let ada: Person;

beforeAll(async () => {
  dist = snapshotDist();
  server = await startServer({ env: { SWITCHBOARD_DIST: dist.dir } });
  browser = await launchChromium();
  ada = await signedInPage(browser, server.url, 'Ada Admin', 'ada@example.com', '/admin/group');
  await apiSignIn(server.url, 'Tom Agent', 'tom@example.com');
  await apiSignIn(server.url, 'Zoe Agent', 'zoe@example.com');
});

afterAll(async () => {
  await shutdownClients();
  await browser?.close();
  await server?.stop();
  server?.cleanup();
  dist?.remove();
});

async function fillGroup(page: Page, name: string, number: string, members: string[]) {
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Number or extension').fill(number);
  for (const m of members) await page.getByLabel('Add a member').selectOption({ label: m });
}

describe('ring groups', () => {
  it('says there are none yet, then creates one with two members and shows it', async () => {
    const { page } = ada;
    await page.getByText('No ring groups yet.').waitFor();
    await page.getByRole('link', { name: 'New ring group' }).click();
    await page.getByRole('heading', { name: 'New ring group' }).waitFor();
    // Nothing filled in: each problem is shown beside its field and nothing is created.
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByText('Enter a name for the group.').waitFor();
    await page.getByText('Enter an extension or a phone number.').waitFor();
    await fillGroup(page, 'Front desk', '200', ['Tom Agent', 'Zoe Agent']);
    await page.getByLabel('In order').check();
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByTestId('group-detail').waitFor();
    expect(await page.getByRole('heading', { name: 'Front desk' }).count()).toBe(1);
    expect(await page.getByTestId('group-member').allTextContents()).toEqual([
      expect.stringContaining('Tom Agent'),
      expect.stringContaining('Zoe Agent'),
    ]);
    expect(await page.getByTestId('group-detail').textContent()).toContain(
      'In order, 20 seconds each',
    );
  });

  it('created the group’s schedule, calendar and forwarding list with it', async () => {
    const sdk = await sdkClientFor(server.url, 'Ada Admin', 'ada@example.com');
    const groups = await sdk.map({ id: 'groups', mode: 'open_existing' });
    const [item] = (await groups.getItems()).items;
    const id = item!.key;
    expect(item!.data).toMatchObject({
      name: 'Front desk',
      number: '200',
      members: ['tom@example.com', 'zoe@example.com'],
      strategy: 'sequential',
      ringTimeout: 20,
    });
    const schedule = await sdk.document({ id: `schedule:${id}`, mode: 'open_existing' });
    expect(schedule.data).toMatchObject({ week: {} });
    const calendar = await sdk.document({ id: `calendar:${id}`, mode: 'open_existing' });
    expect(calendar.data).toEqual({ holidays: [] });
    await sdk.list({ id: `forwarding:${id}`, mode: 'open_existing' });
  });

  it('refuses a number another group already has, beside the field', async () => {
    const { page } = ada;
    await page.goto(`${server.url}/admin/group/create`);
    await fillGroup(page, 'Sales', '200', []);
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByText('200 is already the number of Front desk.').waitFor();
    expect(await page.getByLabel('Name').inputValue()).toBe('Sales');
    // Tom signed in second, so his extension is 101: a group cannot have it.
    await page.getByLabel('Number or extension').fill('101');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByText('101 is already the extension of Tom Agent.').waitFor();
  });

  it("shows everyone's extension on /users and lets the admin change one; a taken one is refused beside the field", async () => {
    const { page } = ada;
    await page.goto(`${server.url}/users`);
    const tom = page.getByLabel('Extension of Tom Agent', { exact: true });
    await expect.poll(() => tom.inputValue()).toBe('101');
    expect(await page.getByLabel('Extension of Zoe Agent', { exact: true }).inputValue()).toBe(
      '102',
    );
    // Ada's own extension: refused before asking the server.
    await tom.fill('100');
    await page.getByRole('button', { name: 'Save the extension of Tom Agent' }).click();
    await page.getByText('100 is already the extension of Ada Admin.').waitFor();
    // A group's number: the server refuses it, naming the group; what was typed stays.
    await tom.fill('200');
    await tom.press('Enter');
    await page.getByText('200 is already the number of the ring group Front desk').waitFor();
    expect(await tom.inputValue()).toBe('200');
    expect(await tom.getAttribute('aria-invalid')).toBe('true');
    await tom.fill('2 50');
    await tom.press('Enter');
    await page.getByText("Tom Agent's extension is now 250.").waitFor();
    await expect.poll(() => tom.inputValue()).toBe('250');
    const sdk = await sdkClientFor(server.url, 'Ada Admin', 'ada@example.com');
    const users = await sdk.map({ id: 'users', mode: 'open_existing' });
    expect((await users.get('tom@example.com')).data).toMatchObject({ extension: '250' });
  });

  it('edits a group; a second admin’s earlier save produces the conflict choice', async () => {
    const { page } = ada;
    await page.goto(`${server.url}/admin/group`);
    await page.getByRole('link', { name: 'Front desk' }).click();
    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByRole('heading', { name: 'Edit Front desk' }).waitFor();
    await page.getByLabel('Name').fill('Reception');
    // Meanwhile another admin renames it (with their own edit form: PUT /api/groups/:id).
    const other = await adminApiFor(server.url, 'Ada Admin', 'ada@example.com');
    const groups = await other.sync.map({ id: 'groups', mode: 'open_existing' });
    const [item] = (await groups.getItems()).items;
    const base = item!.data as Record<string, unknown>;
    expect(await updateGroup(other, item!.key, base, { ...base, name: 'Front office' })).toEqual({
      ok: true,
    });
    await page.getByTestId('group-conflict').waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Another admin saved this group first.').waitFor();
    expect(await page.getByLabel('Name').inputValue()).toBe('Reception');
    await page.getByRole('button', { name: 'Keep mine and overwrite' }).click();
    await page.getByTestId('group-detail').waitFor();
    await page.getByRole('heading', { name: 'Reception' }).waitFor();
  });

  it('adds, reorders and deletes forwarding rules, and refuses a loop between groups', async () => {
    const { page } = ada;
    await page.goto(`${server.url}/admin/group/create`);
    await fillGroup(page, 'Sales', '300', []);
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByRole('heading', { name: 'Sales' }).waitFor();
    // Sales forwards to Reception when nobody answers.
    await page.getByRole('link', { name: 'New forwarding rule' }).click();
    await page.getByLabel('Another ring group').check();
    await page.getByLabel('Ring group', { exact: true }).selectOption({ label: 'Reception' });
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByTestId('forwarding-rule').waitFor();
    expect(await page.getByTestId('forwarding-rule').textContent()).toContain(
      'When nobody answers after 20 s: forward to the group Reception',
    );
    // Reception forwarding to Sales would make a loop.
    await page.goto(`${server.url}/admin/group`);
    await page.getByRole('link', { name: 'Reception' }).click();
    await page.getByRole('link', { name: 'New forwarding rule' }).click();
    await page.getByLabel('Another ring group').check();
    await page.getByLabel('Ring group', { exact: true }).selectOption({ label: 'Sales' });
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByText('That group already forwards back to this one').waitFor();
    // A person instead, then a number outside hours.
    await page.getByLabel('A person').check();
    await page.getByLabel('Person', { exact: true }).selectOption({ label: 'Tom Agent' });
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByTestId('forwarding-rule').waitFor();
    await page.getByRole('link', { name: 'New forwarding rule' }).click();
    await page
      .getByLabel('When', { exact: true })
      .selectOption({ label: 'Outside business hours' });
    await page.getByLabel('A phone number').check();
    await page.getByLabel('Phone number', { exact: true }).fill('+44 20 7946 0000');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await expect.poll(() => page.getByTestId('forwarding-rule').count()).toBe(2);
    const rules = () => page.getByTestId('forwarding-rule').allTextContents();
    expect((await rules())[1]).toContain('Outside business hours: forward to +442079460000');
    // Move the number rule up with the keyboard.
    await page.getByRole('button', { name: /^Move up: Outside business hours/ }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await rules())[0]).toContain('Outside business hours');
    await page.getByRole('button', { name: /^Delete: When nobody answers/ }).click();
    await expect.poll(() => page.getByTestId('forwarding-rule').count()).toBe(1);
  });

  it('deletes a group after confirming, with its schedule, calendar and forwarding', async () => {
    const { page } = ada;
    const sdk = await sdkClientFor(server.url, 'Ada Admin', 'ada@example.com');
    const groups = await sdk.map({ id: 'groups', mode: 'open_existing' });
    const id = (await groups.getItems()).items.find(
      (i) => (i.data as { name?: string }).name === 'Reception',
    )!.key;
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Delete Reception?' });
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByTestId('groups').waitFor();
    await expect
      .poll(() => page.getByTestId('groups').getByRole('link').allTextContents())
      .toEqual(['Sales']);
    for (const open of [
      () => sdk.document({ id: `schedule:${id}`, mode: 'open_existing' }),
      () => sdk.document({ id: `calendar:${id}`, mode: 'open_existing' }),
      () => sdk.list({ id: `forwarding:${id}`, mode: 'open_existing' }),
    ]) {
      await expect(open()).rejects.toMatchObject({ status: 404 });
    }
  });

  it('an agent’s SDK can read the groups but not write them', async () => {
    const tom = await sdkClientFor(server.url, 'Tom Agent', 'tom@example.com');
    const groups = await tom.map({ id: 'groups', mode: 'open_existing' });
    await expect(groups.set('grp-x', { name: 'Mine' })).rejects.toMatchObject({
      status: 403,
      code: 54007,
    });
  });
});
