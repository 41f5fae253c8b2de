// CONTRACT 4: the sign-in form (Email, Password, hidden CSRF field, "Sign in").
import { html, raw } from './html.js';
import { layout } from './layout.js';
import type { PageTheme } from './theme.js';

export interface SignInPageInput {
  siteName: string;
  csrfToken: string;
  /** The authorization request to return to after signing in (a path on this origin). */
  returnTo: string;
  email?: string;
  error?: string;
  theme?: PageTheme;
}

export function signInPage(input: SignInPageInput): string {
  const error = input.error ? html`<p class="error" role="alert" id="sign-in-error">${input.error}</p>` : raw('');
  return layout(
    'Sign in',
    input.siteName,
    html`${error}<form method="post" action="/oauth/sign-in">
<input type="hidden" name="csrf_token" value="${input.csrfToken}">
<input type="hidden" name="return_to" value="${input.returnTo}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${input.email ?? ''}"${raw(input.error ? ' aria-describedby="sign-in-error"' : '')} autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button type="submit">Sign in</button></div>
</form>`,
    input.theme,
  );
}
