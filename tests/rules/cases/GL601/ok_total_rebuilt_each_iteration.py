import torch


class SAC:
    """Each iteration rebuilds `loss` from this step's terms before adding the delayed ones: it
    lives one iteration, for logging, and its graph goes with it."""

    def train(self, batches, policy_delay, fixed_alpha=None):
        history = []
        for step, batch in enumerate(batches):
            q1_loss, q2_loss = self.calc_q_losses(batch)
            self.q_optim.zero_grad()
            (q1_loss + q2_loss).backward()
            self.q_optim.step()
            loss = q1_loss + q2_loss
            if step % policy_delay == 0:
                policy_loss = self.calc_policy_loss(batch)
                self.policy_optim.zero_grad()
                policy_loss.backward()
                self.policy_optim.step()
                if fixed_alpha is None:
                    alpha_loss = self.calc_alpha_loss(batch)
                    self.alpha_optim.zero_grad()
                    alpha_loss.backward()
                    self.alpha_optim.step()
                    loss = loss + alpha_loss
                loss = loss + policy_loss
            history.append(loss.item())
        return history
